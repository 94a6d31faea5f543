#!/usr/bin/env bash
# The latency-budget run (issue 7): the release server pinned to core 0 on a fresh data folder with its
# embedded PostgreSQL (fsync on; PostgreSQL may use both cores), `switchboard-load run` pinned to core 1.
# During the setup only (registration is one Argon2id hash per user) the server may use both cores.
# The load tester spreads its clients over 4 event loops (on its one core): on a single loop, the 2,000 community
# notifications of one publication (about 100 ms of the generator's decoding) held every other client's events
# behind them, and the calls' 20 ms budgets measured the generator (issue 17).
#
# Usage: loadtest/budget-run.sh [users=2000] [seconds=60] [more switchboard-load run options...]
# Environment: SWITCHBOARD_BIN (server), LOAD_BIN (load tester), RING_TIMEOUT (the server's test ring timeout for
# the calls left to time out, default 10 s; the server's default stays 120 s), SERVER_ARGS (more serve flags),
# REPORT (copy the JSON report there). Exit status: the load tester's (0 PASS, 1 FAIL, 2 no run).
# Bounded: the mix runs for the given seconds, then at most --drain-timeout + ring timeout; the server is
# stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
users=${1:-2000}
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : $# )) || true
bin=${SWITCHBOARD_BIN:-.build/release/switchboard}
load=${LOAD_BIN:-.build/release/switchboard-load}
ring=${RING_TIMEOUT:-10}
for b in "$bin" "$load"; do
    [[ -x "$b" ]] || { echo "no $b (swift build -c release --product switchboard --product switchboard-load)" >&2; exit 2; }
done
port=$((20000 + RANDOM % 10000)) # below the ephemeral range: thousands of client sockets use it
work=$(mktemp -d /tmp/budget-run.XXXXXX)
chmod 755 "$work"
server_pid=""
descendants() { local p; for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$p"; descendants "$p"; done; }
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        for _ in $(seq 150); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
# shellcheck disable=SC2086
taskset -c 0,1 "$bin" serve --host 127.0.0.1 --port "$port" --loops 1 --data-dir "$work/data" --log-level warning \
    --max-connections 30000 --ring-timeout "$ring" --login-burst-per-address 1000000 --register-burst-per-address 1000000 \
    --phone-verification off ${SERVER_ARGS:-} \
    >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 600); do
    (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { echo "server exited:" >&2; cat "$work/server.log" >&2; exit 2; }
    sleep 0.1
done
echo "server pid $server_pid (port $port), ring timeout $ring s; $users users, $seconds s" >&2
# Pin the server to core 0 once the setup is over (the load tester prints "run:" when the mix starts).
(
    while kill -0 "$server_pid" 2>/dev/null; do
        if grep -q '^run:' "$work/load.err" 2>/dev/null; then
            taskset -a -p -c 0 "$server_pid" >/dev/null 2>&1 || true
            break
        fi
        sleep 0.2
    done
) &
pinner=$!
status=0
taskset -c 1 "$load" run --url "ws://127.0.0.1:$port/ws" --users "$users" --duration "$seconds" --ring-timeout "$ring" \
    --server-pid "$server_pid" --report "$work/report.json" --admin-command "$bin admin grant {phone} --data-dir $work/data" \
    --loops 4 "$@" 2> >(tee "$work/load.err" >&2) || status=$?
kill "$pinner" 2>/dev/null || true
[[ -z "${REPORT:-}" ]] || cp "$work/report.json" "$REPORT" 2>/dev/null || true
if grep -qiE "error|critical" "$work/server.log"; then
    echo "server log errors:" >&2
    grep -iE "error|critical" "$work/server.log" | head -20 >&2
fi
exit "$status"
