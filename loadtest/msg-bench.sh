#!/usr/bin/env bash
# Messaging benchmarks (issue 4): the release server pinned to core 0 on a fresh data dir with its embedded
# PostgreSQL, msg-bench (setup, then a scenario) pinned to core 1. Builds nothing.
#
# Usage: loadtest/msg-bench.sh fanout|direct|storm [extra msg-bench options for the scenario...]
#   fanout: setup 1,000 users in one group; a peak run (4 senders, 64 unacknowledged sends each), then a
#           run paced at half the peak message rate (the latency goal); prints both JSON results.
#   direct: setup PAIRS pairs of friends (default 200); one run.
#   storm:  setup USERS users in pairs (default 5,000); all connect and authenticate within the ramp (10 s).
#   calls:  setup PAIRS pairs (default 2,000); every pair sets up a call at once (--ramp seconds, default 1):
#           half declined, half accepted with 3 ICE candidates and hung up.
#   table:  issue 17's loads against uWebSockets: setup 1,000 users in one group; 4 senders of 128-byte texts
#           paced at 20 messages/s in all, then closed loops of 32 and 256 messages in flight (4 senders x 8, x 64),
#           RUNS times each (default 3), interleaved; LOADS="20/s 32 256" chooses among them. Each run prints one line: deliveries per server CPU-second
#           and per server+PostgreSQL CPU-second, deliveries per send call (the server's
#           switchboard_frames_total{direction="out"} over switchboard_write_calls_total, read from /metrics
#           around the run) and the ack and delivery p99; the JSON results go to $TABLE_JSON if set. The server
#           runs with --send-rate 100000 (the default per-user limit, 500/s, refuses part of the 256 load).
#           Before each load the script waits (at most QUIET_MAX seconds, 60) until the embedded PostgreSQL uses
#           under 3% of a core: after a 256 run it works on for a while, and the loads are for a quiet machine.
#           WARMUP=1 (the default) first runs one unrecorded load of 32 in flight for 5 s: on a fresh data folder
#           the first closed-loop load finds PostgreSQL at about twice its later CPU.
#           GENERATOR=picows: the clients are Python picows ones (loadtest/picows-fanout.py, `pip install picows`),
#           the kind of generator issue 17 measured uWebSockets with, instead of msg-bench.
# Environment: SWITCHBOARD_BIN (server binary), GROUP_SIZE (fanout, 1000), PAIRS (direct, 200), USERS (storm,
# 5000), LOOPS (the server's --loops, default 1), SERVER_CORES (the server's cores, default 0), PG_CORES (cores the
# embedded PostgreSQL may use, default 0,1), SETUP_CORES (cores the server may use
# during setup only: registration is Argon2id-bound; default 0,1), SERVER_ARGS (extra serve flags),
# LT_DIR (where msg-bench is, default loadtest/.build-lt/release), KEEP_USERS=file (copy the users file there), RATES="20 100" (fanout: more paced runs at these messages/s).
# Every step is bounded (setup --timeout, scenario durations, drain timeouts); the server is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:?fanout, direct, storm or calls}
shift || true
lt=${LT_DIR:-loadtest/.build-lt/release}
bin=${SWITCHBOARD_BIN:-}
if [[ -z "$bin" ]]; then
    if [[ -x .build-rel/release/switchboard ]]; then bin=.build-rel/release/switchboard; else bin=.build/release/switchboard; fi
fi
[[ -x "$bin" ]] || { echo "no server binary at $bin (swift build -c release --scratch-path .build-rel)" >&2; exit 2; }
[[ -x $lt/msg-bench ]] || { echo "no $lt/msg-bench (swift build -c release --package-path loadtest --scratch-path loadtest/.build-lt)" >&2; exit 2; }
pg_cores=${PG_CORES:-0,1}
setup_cores=${SETUP_CORES:-0,1}
port=$((20000 + RANDOM % 10000)) # below the ephemeral range (32768-60999): thousands of client sockets use it
work=$(mktemp -d /tmp/msg-bench.XXXXXX)
chmod 755 "$work"
users_file="$work/users.json"
server_pid=""

descendants() { # all descendants of $1
    local p
    for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$p"; descendants "$p"; done
}
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        local kids
        kids=$(descendants "$server_pid" | tr '\n' ' ')
        kill "$server_pid" 2>/dev/null || true
        for _ in $(seq 150); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$server_pid" 2>/dev/null; then
            echo "server $server_pid did not stop in 15 s: kill -9" >&2
            kill -9 "$server_pid" 2>/dev/null || true
            for k in $kids; do kill -9 "$k" 2>/dev/null || true; done
        fi
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck disable=SC2086
server_cores=${SERVER_CORES:-0}
# The table's closed loops send faster than the per-user default of 500 messages/s (4 senders x 64 in flight: about
# 650 each): its server takes --send-rate 100000, so the loads measure delivery, not the rate limiter.
scenario_args=""
[[ "$scenario" == table ]] && scenario_args="--send-rate 100000"
taskset -c "$server_cores" "$bin" serve --host 127.0.0.1 --port "$port" --loops "${LOOPS:-1}" --data-dir "$work/data" --log-level warning \
    --max-connections 30000 --register-burst-per-address 1000000 --phone-verification off $scenario_args ${SERVER_ARGS:-} \
    >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 600); do
    (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { echo "server exited:" >&2; cat "$work/server.log" >&2; exit 1; }
    sleep 0.1
done
(echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null || { echo "server not listening after 60 s" >&2; cat "$work/server.log" >&2; exit 1; }
# The embedded PostgreSQL inherited core 0 from the server: let it use $pg_cores.
for p in $(descendants "$server_pid"); do taskset -a -p -c "$pg_cores" "$p" >/dev/null 2>&1 || true; done
echo "server pid $server_pid on cores $server_cores with ${LOOPS:-1} loop(s) (port $port), PostgreSQL on cores $pg_cores: $(descendants "$server_pid" | wc -l) processes" >&2

setup() {
    taskset -a -p -c "$setup_cores" "$server_pid" >/dev/null
    taskset -c 1 "$lt/msg-bench" setup --port "$port" --output "$users_file" --timeout 900 "$@" >&2
    taskset -a -p -c "$server_cores" "$server_pid" >/dev/null
    [[ -z "${KEEP_USERS:-}" ]] || cp "$users_file" "$KEEP_USERS"
    sleep 6 # presence grace of the setup connections passes
}
bench() {
    taskset -c 1 "$lt/msg-bench" "$@" --users "$users_file" --server-pid "$server_pid" --json
}

case "$scenario" in
    fanout)
        size=${GROUP_SIZE:-1000}
        setup --users "$size" --group-size "$size"
        peak=$(bench fanout --senders 4 --window 64 "$@")
        echo "$peak"
        rate=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["messages_per_second"] // 2)' "$peak")
        bench fanout --senders 4 --window 64 "$@" --rate "$rate"
        for r in ${RATES:-}; do bench fanout --senders 4 --window 64 "$@" --rate "$r"; done
        ;;
    direct)
        pairs=${PAIRS:-200}
        setup --users $((2 * pairs)) --pairs
        bench direct --window 16 "$@"
        ;;
    calls)
        pairs=${PAIRS:-2000}
        setup --users $((2 * pairs)) --pairs
        bench calls "$@"
        ;;
    table)
        size=${GROUP_SIZE:-1000}
        setup --users "$size" --group-size "$size"
        metrics() { curl -s "http://127.0.0.1:$port/metrics" >"$1"; }
        # CPU ticks (1/100 s) of the server's embedded PostgreSQL so far.
        pg_ticks() {
            local total=0 p f
            for p in $(descendants "$server_pid"); do
                f=$(cut -d' ' -f14,15 "/proc/$p/stat" 2>/dev/null) || continue
                total=$((total + ${f% *} + ${f#* }))
            done
            echo "$total"
        }
        # "A quiet machine": after a heavy load the embedded PostgreSQL works on for a while (20-24% of a core was
        # seen after a 256 run). Wait until it uses under 3% of a core over a second, at most QUIET_MAX seconds (60).
        wait_quiet() {
            local waited=0 a b
            while (( waited < ${QUIET_MAX:-60} )); do
                a=$(pg_ticks); sleep 1; b=$(pg_ticks)
                waited=$((waited + 1))
                (( b - a < 3 )) && break
            done
            (( waited > 1 )) && echo "waited ${waited} s for PostgreSQL to go quiet ($((b - a))% of a core in the last second)" >&2
            return 0
        }
        if [[ "${WARMUP:-1}" == 1 ]]; then
            # The first closed-loop load on a fresh data folder finds PostgreSQL at about twice its later CPU (27% of
            # a core against 13-14% at 32 in flight, with either build; new WAL segments and the first growth of the
            # tables): one unrecorded 32 load first, so every recorded load meets the steady state.
            echo "warm-up: one unrecorded load of 32 in flight" >&2
            bench fanout --senders 4 --text-size 128 --window 8 --duration 5 >/dev/null || { echo "warm-up failed" >&2; exit 1; }
        fi
        for run in $(seq "${RUNS:-3}"); do
            for name in ${LOADS:-20/s 32 256}; do
                case "$name" in
                    20/s) load="20/s:--window 8 --rate 20" ;;
                    32) load="32:--window 8" ;;
                    256) load="256:--window 64" ;;
                    *) echo "LOADS: 20/s, 32 or 256, not $name" >&2; exit 2 ;;
                esac
                wait_quiet
                metrics "$work/m0"
                # shellcheck disable=SC2086
                if [[ "${GENERATOR:-msg-bench}" == picows ]]; then
                    result=$(taskset -c 1 python3 loadtest/picows-fanout.py --port "$port" --users "$users_file" --server-pid "$server_pid" \
                        --senders 4 --text-size 128 ${load#*:} "$@") || { echo "run failed: $result" >&2; exit 1; }
                else
                    result=$(bench fanout --senders 4 --text-size 128 ${load#*:} "$@") || { echo "run failed: $result" >&2; exit 1; }
                fi
                sleep 1.2 # the loops publish their counts once per sweep (1 s)
                metrics "$work/m1"
                [[ -z "${TABLE_JSON:-}" ]] || echo "$result" >>"$TABLE_JSON"
                python3 loadtest/table-row.py "${load%%:*}" "$result" "$work/m0" "$work/m1"
            done
        done
        ;;
    storm)
        users=${USERS:-5000}
        setup --users "$users" --pairs
        taskset -c 1 "$lt/msg-bench" storm --users "$users_file" --server-pid "$server_pid" --json "$@"
        ;;
    *) echo "usage: $0 fanout|direct|storm|calls|table [msg-bench options]" >&2; exit 2 ;;
esac
if grep -qiE "error|critical" "$work/server.log"; then
    echo "server log errors:" >&2
    grep -iE "error|critical" "$work/server.log" | head -20 >&2
fi
