#!/usr/bin/env bash
# Idle connections (issue 7): `switchboard-load idle` holds N authenticated WebSocket connections and reports
# the servers' memory per connection. One process holds at most ~19,900 sockets here (open-files limit 20,000),
# so SERVERS release server processes share one PostgreSQL (started by scripts/test-postgres.sh), each on its
# own loopback address (127.0.0.1, 127.0.0.2, ...: connections to one address beyond ~14,100 make every
# connect() scan the ephemeral ports, see IdleCommand.swift), and the load tester spreads its clients over one
# worker process per server (at most 15,000 each).
#
# Usage: loadtest/budget-idle.sh [connections=20000] [servers=2] [more switchboard-load idle options...]
# Environment: SWITCHBOARD_BIN, LOAD_BIN, REPORT (copy the JSON report there), CLUSTER=1 (the servers are the
# nodes of one cluster: a redis-server is started and every server gets --redis-url), PORT (the servers' port;
# default: random in 20000-29999; keep it out of the ephemeral range if you widen it).
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
port=${PORT:-$((20000 + RANDOM % 10000))}
work=$(mktemp -d /tmp/budget-idle.XXXXXX)
chmod 755 "$work"
pids=()
redis_pid=""
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null || true
    scripts/test-postgres.sh stop "$work/pg" || true
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
eval "$(scripts/test-postgres.sh start "$work/pg")"
args=()
cluster=()
if [[ "${CLUSTER:-0}" == 1 ]]; then
    redis_port=$((30000 + RANDOM % 2000))
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$redis_port) 2>/dev/null && break; sleep 0.05; done
    cluster=(--redis-url "redis://127.0.0.1:$redis_port")
fi
for i in $(seq "$servers"); do
    "$bin" serve --host "127.0.0.$i" --port "$port" --database-url "$SWITCHBOARD_TEST_DATABASE_URL" "${cluster[@]}" \
        --max-connections 100000 --register-burst-per-address 1000000 --log-level warning >>"$work/server.log" 2>&1 &
    pids+=($!)
    args+=(--server-pid "$!" --url "ws://127.0.0.$i:$port/ws")
done
for i in $(seq "$servers"); do
    for _ in $(seq 300); do (echo >/dev/tcp/127.0.0.$i/$port) 2>/dev/null && break; sleep 0.1; done
done
sleep 1
echo "$servers server process(es) on 127.0.0.1-$servers port $port: ${pids[*]}" >&2
workers=$(( (n + 14999) / 15000 ))
(( workers < servers )) && workers=$servers
status=0
"$load" idle --connections "$n" --processes "$workers" "${args[@]}" --report "$work/report.json" "$@" || status=$?
[[ -z "${REPORT:-}" ]] || cp "$work/report.json" "$REPORT" 2>/dev/null || true
exit "$status"
