#!/usr/bin/env bash
# Runs every test of Switchboard: unit and integration tests (swift test, against a PostgreSQL and a Redis this
# script starts), the engine and integration tests again under ThreadSanitizer, the independent-client tests, the
# web app's browser tests (Chromium through Playwright), and the WebSocket conformance suite (Autobahn).
#   scripts/test.sh            everything (Autobahn's 517 cases take ~20-30 min, most in 12.*/13.*)
#   scripts/test.sh --quick    the same, but Autobahn without the slow permessage-deflate 12.*/13.* cases
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1

scripts/deps.sh --test

work=$(mktemp -d /tmp/switchboard-test.XXXXXX)
# As root, PostgreSQL runs as an unprivileged user that must reach $work/pg (mktemp makes the folder 0700).
chmod 711 "$work"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    scripts/test-postgres.sh stop "$work/pg" || true
    scripts/test-redis.sh stop "$work/redis" || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "== PostgreSQL for the tests"
eval "$(scripts/test-postgres.sh start "$work/pg")"
if [[ -z "${SWITCHBOARD_TEST_DATABASE_URL:-}" ]]; then
    echo "the test PostgreSQL did not start:" >&2
    cat "$work/pg/initdb.log" "$work/pg/run/pg.log" 2>/dev/null >&2 || true
    exit 1
fi

echo "== Redis for the tests"
eval "$(scripts/test-redis.sh start "$work/redis")"

echo "== format: swift-format lint (.swift-format) and no line over 120 columns (scripts/format.sh --check)"
scripts/format.sh --check

echo "== swift build"
swift build --build-tests 2>&1 | tee "$work/build.log" | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
test "${PIPESTATUS[0]}" -eq 0
# No warnings in the project's own code (dependencies' sources under .build are not ours to change).
if grep -E 'warning:' "$work/build.log" | grep -v '/\.build' | grep -q .; then
    echo "swift build: warnings in the project's code (none allowed):" >&2
    grep -E 'warning:' "$work/build.log" | grep -v '/\.build' | sort -u >&2
    exit 1
fi

echo "== fuzz targets (libFuzzer + ASan, 15 s each; fuzz/run.sh runs one for longer)"
for target in HTTPHeadFuzz FrameDecoderFuzz ProtocolFuzz RedisReplyFuzz CalendarFuzz PostTextFuzz ImageFuzz \
    ClientScanFuzz; do
    fuzz/run.sh "$target" 15 >"$work/fuzz-$target.log" 2>&1 || { tail -40 "$work/fuzz-$target.log"; exit 1; }
    grep -E '^Done|stat::number_of_executed_units' "$work/fuzz-$target.log" | tr '\n' ' '; echo "($target)"
done
fuzz/run-media.sh 15 >"$work/fuzz-media.log" 2>&1 || { tail -40 "$work/fuzz-media.log"; exit 1; }
grep -E '^Done|stat::number_of_executed_units' "$work/fuzz-media.log" | tr '\n' ' '; echo "(MediaFuzz)"

echo "== swift test"
# The client library's suite awaits on Swift's cooperative pool, which the blocking socket tests of the
# other suites can occupy for tens of seconds on a 2-core machine: it runs on its own, after them.
swift test --skip-build --disable-xctest --skip ClientLibraryTests
swift test --skip-build --disable-xctest --filter ClientLibraryTests

echo "== ThreadSanitizer: engine, transport, store, Redis and integration suites (scripts/test-tsan.sh)"
# Its own build (.build-tsan); fails on any report. Which suites and why: the script's header.
scripts/test-tsan.sh

echo "== terminal client (pseudo-terminal)"
python3 Tests/cli/test_cli.py

echo "== cluster: three nodes on 127.0.0.1-3, one PostgreSQL, one Redis (an independent Python client)"
python3 Tests/cluster/test_cluster.py

echo "== cluster faults: a node stopped inside a commit (others wait at most the lock timeout), Redis killed under load"
python3 Tests/cluster/test_faults.py

echo "== cluster: live pages on two nodes (a post on node 1 to a home on node 2, resume on the other node)"
python3 Tests/cluster/test_social_live.py

echo "== cluster: moments on two nodes (a photo and a moment on node 1 reach a friend on node 2, not a stranger)"
python3 Tests/cluster/test_moments.py

echo "== backups: backup under send load, restore into a new data folder and an empty database, scheduled backups"
python3 Tests/backup/test_backup.py

echo "== web app in Chromium (Tests/web: serving first, then the app's and media's tests;" \
    "each in a loopback-only network namespace)"
python3 Tests/web/test_serving.py
for t in Tests/web/test_*.py; do
    [[ "$t" == Tests/web/test_serving.py ]] && continue
    python3 "$t"
done

echo "== calls with real media from the terminal client (Tests/callmedia: a browser, coturn," \
    "a lossy path between network namespaces)"
python3 Tests/callmedia/test_call_media.py

echo "== WebSocket conformance (Autobahn)"
swift build -c release --product switchboard 2>&1 | tail -1
port=$((20000 + RANDOM % 20000))
.build/release/switchboard serve --host 127.0.0.1 --port "$port" --enable-echo \
    --max-frame-size 16777216 --max-message-size 16777216 --max-outbound-bytes 67108864 \
    --log-level warning >"$work/autobahn-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    sleep 0.1
done
args=()
((quick)) && args+=(--exclude '12.*,13.*')
autobahn=${AUTOBAHN_CHECK:-../shared/tools/autobahn-check}
[[ -x "$autobahn" ]] || autobahn=/work/shared/tools/autobahn-check
"$autobahn" "${args[@]}" --timeout 3000 "ws://127.0.0.1:$port/echo"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

echo "== load tester: a five-second mix and 300 idle connections (smoke; speed is judged by loadtest/budget-*.sh)"
swift build -c release --product switchboard-load 2>&1 | tail -1
port=$((20000 + RANDOM % 10000))
.build/release/switchboard serve --host 127.0.0.1 --port "$port" --database-url "$SWITCHBOARD_TEST_DATABASE_URL" \
    --ring-timeout 2 --login-burst-per-address 100000 --register-burst-per-address 100000 \
    --login-burst-per-phone 100000 --log-level warning \
    --export-dir "$work/exports" >"$work/load-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
    (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    sleep 0.1
done
# The mix: every kind of operation (calls time out after the 2 s test ring timeout), 10% of the clients
# dropped and resumed; judged against the apps' end-to-end ceilings only (loadtest/budgets-smoke.json).
.build/release/switchboard-load run --url "ws://127.0.0.1:$port/ws" --users 40 --duration 5 --ring-timeout 2 \
    --server-pid "$server_pid" --budgets loadtest/budgets-smoke.json --report "$work/load-report.json" \
    --event-rate 1 \
    --admin-command ".build/release/switchboard admin grant {phone} --database-url '$SWITCHBOARD_TEST_DATABASE_URL'"
# Idle mode through its worker process: every connection authenticated and held (memory not judged here).
.build/release/switchboard-load idle --url "ws://127.0.0.1:$port/ws" --connections 300 --users 10 --hold 2 \
    --ramp-rate 300 --server-pid "$server_pid" --max-bytes-per-connection 1048576 --max-authenticate-p99-ms 3000
# Every op's decoder and handler with extreme values (an independent Python client; the server must answer each
# request with a documented code other than `internal`, and stay up).
python3 fuzz/ops_fuzz.py --url "ws://127.0.0.1:$port/ws" --seconds 30 --server-pid "$server_pid" \
    --admin-command ".build/release/switchboard admin grant {phone} --database-url '$SWITCHBOARD_TEST_DATABASE_URL'"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
# Photos (issue 19): generated 12 MP uploads, tus, the moments feed and downloads on a server of its own (smoke).
python3 loadtest/photo-bench.py --small
echo "== all tests passed"
