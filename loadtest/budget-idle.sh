#!/usr/bin/env bash
# Idle connections (issue 7): `switchboard-load idle` holds N authenticated WebSocket connections and reports
# the servers' memory per connection. One process holds at most ~19,900 sockets here (open-files limit 20,000),
# so SERVERS release server processes share the port (--reuse-port) and one PostgreSQL (started by
# scripts/test-postgres.sh), and the load tester spreads its clients over worker processes (15,000 each).
#
# Usage: loadtest/budget-idle.sh [connections=20000] [servers=2] [more switchboard-load idle options...]
# Environment: SWITCHBOARD_BIN, LOAD_BIN, REPORT (copy the JSON report there).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
servers=${2:-2}
shift $(( $# >= 2 ? 2 : $# )) || true
bin=${SWITCHBOARD_BIN:-.build/release/switchboard}
load=${LOAD_BIN:-.build/release/switchboard-load}
for b in "$bin" "$load"; do
    [[ -x "$b" ]] || { echo "no $b (swift build -c release --product switchboard --product switchboard-load)" >&2; exit 2; }
done
port=$((20000 + RANDOM % 10000))
work=$(mktemp -d /tmp/budget-idle.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    scripts/test-postgres.sh stop "$work/pg" || true
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
eval "$(scripts/test-postgres.sh start "$work/pg")"
for _ in $(seq "$servers"); do
    "$bin" serve --host 127.0.0.1 --port "$port" --reuse-port --database-url "$SWITCHBOARD_TEST_DATABASE_URL" \
        --max-connections 100000 --log-level warning >>"$work/server.log" 2>&1 &
    pids+=($!)
done
for _ in $(seq 300); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
sleep 1
args=()
for p in "${pids[@]}"; do args+=(--server-pid "$p"); done
echo "$servers server process(es) on port $port: ${pids[*]}" >&2
status=0
"$load" idle --url "ws://127.0.0.1:$port/ws" --connections "$n" "${args[@]}" --report "$work/report.json" "$@" || status=$?
[[ -z "${REPORT:-}" ]] || cp "$work/report.json" "$REPORT" 2>/dev/null || true
exit "$status"
