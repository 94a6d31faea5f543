#!/usr/bin/env bash
# Server memory per idle WebSocket connection.
# Usage: loadtest/idle-memory.sh N [servers=1] [nio|switchboard]
# Starts `servers` server processes sharing one port (SO_REUSEPORT; one process holds at most ~19,900
# fds here, so N above that needs several), measures their summed RSS before and after opening N idle
# WebSocket connections with ws-idle (15,000 per client process), and prints bytes per connection.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?connections}
servers=${2:-1}
kind=${3:-switchboard}
port=$((30000 + RANDOM % 10000))
lt=loadtest/.build-lt/release
bin=${SWITCHBOARD_BIN:-}
if [[ -z "$bin" ]]; then
    if [[ -x .build-rel/release/switchboard ]]; then bin=.build-rel/release/switchboard; else bin=.build/release/switchboard; fi
fi
[[ -x $lt/ws-idle && -x $lt/nio-echo-server ]] || swift build -c release --package-path loadtest --scratch-path loadtest/.build-lt >&2
pids=()
clients=()
cleanup() {
    for p in "${clients[@]}" "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
for _ in $(seq "$servers"); do
    if [[ "$kind" == nio ]]; then
        "$lt/nio-echo-server" --host 127.0.0.1 --port "$port" --threads 1 >/dev/null &
    else
        "$bin" serve --host 127.0.0.1 --port "$port" --enable-echo --reuse-port --max-connections 100000 --log-level warning &
    fi
    pids+=($!)
done
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
sleep 1
rss() { local t=0; for p in "${pids[@]}"; do t=$((t + $(awk '/VmRSS/{print $2}' "/proc/$p/status"))); done; echo $((t * 1024)); }
before=$(rss)
left=$n
src=1
while ((left > 0)); do
    chunk=$((left > 15000 ? 15000 : left))
    fifo=$(mktemp -u); mkfifo "$fifo"
    "$lt/ws-idle" --port "$port" --count "$chunk" --source-addresses 16 --hold 600 >"$fifo" &
    clients+=($!)
    read -r line <"$fifo"; rm -f "$fifo"
    echo "client: $line" >&2
    left=$((left - chunk))
done
sleep 3
after=$(rss)
delta=$((after - before))
echo "$kind: $n idle connections over $servers process(es): RSS $((before / 1048576)) MiB -> $((after / 1048576)) MiB, $((delta / n)) bytes per connection"
