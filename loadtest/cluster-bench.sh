#!/usr/bin/env bash
# Cluster benchmarks (issue 15): NODES release servers on 127.0.0.1..NODES (one port) sharing one PostgreSQL and
# one Redis, against one node alone (no Redis) on the same PostgreSQL. msg-bench spreads its clients over the
# nodes (client i on node i mod NODES) and sums the nodes' CPU. Builds nothing; every step is bounded; every
# process is stopped by PID.
#
# Usage: loadtest/cluster-bench.sh NODES direct|fanout [extra msg-bench options...]
#   NODES 1 runs a single node without Redis (the baseline); 2 or 3 run a cluster.
#   direct: PAIRS pairs (default 200), window 16 (peak), then paced at RATE messages/s (default 2000) for latency.
#   fanout: a group of GROUP_SIZE (default 1000), 4 senders x 64 (peak), then paced at RATE (default 200).
# Environment: SWITCHBOARD_BIN (release server), PAIRS, GROUP_SIZE, RATE, SERVER_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:?nodes: 1, 2 or 3}
scenario=${2:?direct or fanout}
shift 2 || true
lt=loadtest/.build-lt/release
bin=${SWITCHBOARD_BIN:-.build/release/switchboard}
[[ -x "$bin" ]] || { echo "no server binary at $bin (swift build -c release --product switchboard)" >&2; exit 2; }
[[ -x $lt/msg-bench ]] || { echo "no $lt/msg-bench (swift build -c release --package-path loadtest --scratch-path loadtest/.build-lt)" >&2; exit 2; }
port=$((20000 + RANDOM % 10000))
work=$(mktemp -d /tmp/cluster-bench.XXXXXX)
chmod 711 "$work"
pids=()
redis_pid=""
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do
        for _ in $(seq 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
    done
    [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null || true
    scripts/test-postgres.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

eval "$(scripts/test-postgres.sh start "$work/pg")"
database_url=$SWITCHBOARD_TEST_DATABASE_URL
cluster_args=()
if ((nodes > 1)); then
    redis_port=$((30000 + RANDOM % 2000))
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$redis_port) 2>/dev/null && break; sleep 0.05; done
    cluster_args=(--redis-url "redis://127.0.0.1:$redis_port")
fi
hosts=()
for n in $(seq "$nodes"); do
    host=127.0.0.$n
    # shellcheck disable=SC2086
    "$bin" serve --host "$host" --port "$port" --loops 1 --database-url "$database_url" "${cluster_args[@]}" --log-level warning \
        --max-connections 30000 --register-burst-per-address 1000000 ${SERVER_ARGS:-} >"$work/node$n.log" 2>&1 &
    pids+=($!)
    hosts+=("$host")
done
for n in $(seq "$nodes"); do
    for _ in $(seq 300); do
        [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.$n:$port/readyz")" == 200 ]] && break
        sleep 0.1
    done
done
host_list=$(IFS=,; echo "${hosts[*]}")
pid_args=()
for p in "${pids[@]}"; do pid_args+=(--server-pid "$p"); done
echo "$nodes node(s) on ${host_list} port $port (pids ${pids[*]})" >&2

users_file="$work/users.json"
bench() { "$lt/msg-bench" "$@" --users "$users_file" --hosts "$host_list" "${pid_args[@]}" --json; }
case "$scenario" in
    direct)
        "$lt/msg-bench" setup --port "$port" --output "$users_file" --timeout 900 --users $((2 * ${PAIRS:-200})) --pairs >&2
        sleep 3
        bench direct --window 16 "$@"
        bench direct --window 16 --rate "${RATE:-2000}" "$@"
        ;;
    fanout)
        size=${GROUP_SIZE:-1000}
        "$lt/msg-bench" setup --port "$port" --output "$users_file" --timeout 900 --users "$size" --group-size "$size" >&2
        sleep 3
        bench fanout --senders 4 --window 64 "$@"
        bench fanout --senders 4 --window 64 --rate "${RATE:-200}" "$@"
        ;;
    *) echo "usage: $0 NODES direct|fanout" >&2; exit 2 ;;
esac
for n in $(seq "$nodes"); do
    if grep -qiE "error|critical" "$work/node$n.log"; then
        echo "node $n log errors:" >&2
        grep -iE "error|critical" "$work/node$n.log" | head -10 >&2
    fi
done
