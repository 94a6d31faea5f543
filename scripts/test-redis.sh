#!/usr/bin/env bash
# Starts (or stops) a throwaway Redis for the test suite, on 127.0.0.1 only, at a free port, without persistence.
#   eval "$(scripts/test-redis.sh start DIR)"   prints: export SWITCHBOARD_TEST_REDIS_URL=...; export TEST_REDIS_DIR=...
#   scripts/test-redis.sh stop DIR               stops it by the PID in DIR/redis.pid
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?folder}
bin=$(command -v redis-server || true)
[[ -n "$bin" ]] || { echo "test-redis: redis-server not found (apt-get install redis-server)" >&2; exit 2; }

case "$cmd" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -s "$dir/redis.pid" ]] && kill -0 "$(cat "$dir/redis.pid")" 2>/dev/null \
        && [[ "$(awk '{print $3}' "/proc/$(cat "$dir/redis.pid")/stat" 2>/dev/null)" != Z ]]; then
        echo "test-redis: a redis-server from $dir is running already (stop it first)" >&2; exit 1
    fi
    # Below the ephemeral range (32768-60999), so that no outgoing connection takes the port between the check
    # and the bind; a bind that fails anyway (another process took it) is retried on another port.
    port=""
    for _ in $(seq 5); do
        candidate=""
        for _ in $(seq 50); do
            c=$((20000 + RANDOM % 12000))
            if ! (echo >/dev/tcp/127.0.0.1/$c) 2>/dev/null; then candidate=$c; break; fi
        done
        [[ -n "$candidate" ]] || continue
        rm -f "$dir/redis.pid"
        # DEBUG is allowed from loopback only (the client's timeout tests use DEBUG SLEEP on their own servers).
        "$bin" --port "$candidate" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
            --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" --enable-debug-command local >/dev/null || continue
        for _ in $(seq 100); do
            (echo >/dev/tcp/127.0.0.1/$candidate) 2>/dev/null && [[ -s "$dir/redis.pid" ]] && break
            sleep 0.05
        done
        if (echo >/dev/tcp/127.0.0.1/$candidate) 2>/dev/null && [[ -s "$dir/redis.pid" ]]; then port=$candidate; break; fi
    done
    [[ -n "$port" ]] || { echo "test-redis: redis-server did not start:" >&2; cat "$dir/redis.log" >&2; exit 1; }
    echo "export SWITCHBOARD_TEST_REDIS_URL='redis://127.0.0.1:$port'"
    echo "export TEST_REDIS_DIR='$dir'"
    ;;
stop)
    if [[ -s "$dir/redis.pid" ]]; then
        pid=$(cat "$dir/redis.pid")
        if kill "$pid" 2>/dev/null; then
            # Daemonized, its parent is PID 1, which may not reap it here: a zombie counts as stopped.
            for _ in $(seq 100); do
                kill -0 "$pid" 2>/dev/null || break
                [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" == Z ]] && break
                sleep 0.05
            done
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$dir/redis.pid"
    fi
    ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
