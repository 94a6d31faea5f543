#!/usr/bin/env bash
# Echo benchmark: a server pinned to core 0, the load generator (ws-bench) pinned to core 1.
# Usage: loadtest/echo-bench.sh nio|switchboard [connections=100] [seconds=10] [size=64]
# Environment: TEXT=1 sends text frames (of ASCII 'a's) instead of binary ones.
# Prints round trips/s, server CPU microseconds per round trip (utime+stime from /proc over the
# measured window) and latency percentiles. Bounded: the generator stops after warm-up + seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?nio or switchboard}
connections=${2:-100}
seconds=${3:-10}
size=${4:-64}
warmup=2
port=$((20000 + RANDOM % 10000)) # below the ephemeral range (32768-60999)
lt=loadtest/.build-lt/release
bin=${SWITCHBOARD_BIN:-}
if [[ -z "$bin" ]]; then
    if [[ -x .build-rel/release/switchboard ]]; then bin=.build-rel/release/switchboard; else bin=.build/release/switchboard; fi
fi
# Builds only what this run needs (the SwiftNIO server takes minutes to build and is not needed for `switchboard`).
[[ -x $lt/ws-bench ]] || swift build -c release --package-path loadtest --scratch-path loadtest/.build-lt --product ws-bench >&2
if [[ "$kind" == nio && ! -x $lt/nio-echo-server ]]; then
    swift build -c release --package-path loadtest --scratch-path loadtest/.build-lt --product nio-echo-server >&2
fi
server_pid=""
cleanup() { [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT
case "$kind" in
    nio) taskset -c 0 "$lt/nio-echo-server" --host 127.0.0.1 --port "$port" --threads 1 >/dev/null & ;;
    switchboard)
        if [[ ! -x "$bin" ]]; then echo "no server binary at $bin (swift build -c release --product switchboard)" >&2; exit 2; fi
        taskset -c 0 "$bin" serve --host 127.0.0.1 --port "$port" --enable-echo --loops 1 --log-level warning & ;;
    *) echo "usage: $0 nio|switchboard [connections] [seconds] [size]" >&2; exit 2 ;;
esac
server_pid=$!
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
cpu() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }
tck=$(getconf CLK_TCK)
out=$(mktemp)
taskset -c 1 "$lt/ws-bench" --url "ws://127.0.0.1:$port/echo" --connections "$connections" --duration "$seconds" \
    --warmup "$warmup" --message-size "$size" ${TEXT:+--text} --json >"$out" &
bench=$!
sleep "$warmup"
c0=$(cpu)
sleep "$seconds"
c1=$(cpu)
wait "$bench" || { echo "ws-bench failed" >&2; cat "$out" >&2; exit 1; }
python3 - "$out" "$c0" "$c1" "$tck" "$kind" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); c0, c1, tck = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
cpu_s = (c1 - c0) / tck
us = cpu_s / r["round_trips"] * 1e6 if r["round_trips"] else float("nan")
print(f'{sys.argv[5]}: {r["connections"]} conns, {r["message_size"]} B: {r["round_trips_per_second"]} round trips/s, '
      f'server CPU {us:.2f} us/round trip ({cpu_s:.2f} s CPU), p50 {r["p50_us"]:.0f} us, p99 {r["p99_us"]:.0f} us, errors {r["errors"]}')
PY
rm -f "$out"
