#!/usr/bin/env bash
# A local Switchboard cluster on loopback: one PostgreSQL (scripts/test-postgres.sh), one Redis and NODES
# `switchboard serve` processes, node N on 127.0.0.N:PORT (the same port on each address), all with the same
# --database-url and --redis-url. Used by the cluster tests and benchmarks and on an operator's laptop.
#
#   eval "$(scripts/cluster-local.sh start DIR [NODES=3])"
#       prints: export CLUSTER_DIR=... CLUSTER_URLS='ws://127.0.0.1:P/ws ws://127.0.0.2:P/ws ...'
#               CLUSTER_PIDS='pid1 pid2 ...' CLUSTER_DATABASE_URL=... CLUSTER_REDIS_URL=...
#       (progress goes to stderr) and returns once every node's /readyz answers 200 (each bounded by
#       READY_TIMEOUT seconds), or stops what it started and exits 1.
#   scripts/cluster-local.sh stop DIR     stops the nodes (SIGTERM, then SIGKILL after 15 s), Redis and
#                                         PostgreSQL, by the PIDs recorded in DIR; nothing else.
#   scripts/cluster-local.sh status DIR   one line per node: N PID URL and up/down/ready.
#
# DIR holds: pg/ (PostgreSQL), redis/ (Redis: redis.pid, redis.log), node-N/ (each node's --data-dir and
# node.log), nodes (one line per node: "N PID URL"), urls (one WebSocket URL a line), pids, env (the exports).
#
# Environment:
#   SWITCHBOARD_BIN  the server (default: .build-rel/release/switchboard, .build/release/switchboard, then
#                    .build/debug/switchboard, the first that exists)
#   CLUSTER_PORT     the port on every address (default: a free one in 20000-29999)
#   SERVE_ARGS       more `switchboard serve` options for every node (e.g. the load tester's
#                    "--register-burst-per-address 1000000 --login-burst-per-address 1000000")
#   READY_TIMEOUT    seconds each node may take to answer /readyz 200 (default 60)
#   REDIS_URL        use this Redis instead of starting one (it is then never stopped)
#   HAPROXY=1        also start HAProxy in front of the nodes with docker/haproxy.cfg adapted to loopback
#                    (servers 127.0.0.N:PORT, frontend 127.0.0.1:LB_PORT, admin 127.0.0.1:ADMIN_PORT, maxconn
#                    9000 for the open-files limit): exports CLUSTER_LB_URL and CLUSTER_LB_ADMIN (its /healthz
#                    and /stats), config and log in DIR/haproxy/
# A server without --redis-url (before the cluster's Redis wiring) runs as independent nodes that share one
# PostgreSQL: the script says so on stderr and starts them anyway (failover and resume work; live delivery
# between nodes does not).
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=${1:?usage: $0 start|stop|status DIR [NODES=3]}
dir=${2:?usage: $0 start|stop|status DIR [NODES=3]}
nodes=${3:-3}

log() { echo "cluster-local: $*" >&2; }

# Whether PID is alive and not a zombie (PID 1 here does not reap orphans).
alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n "$state" && "$state" != "Z" && "$state" != "X" ]]
}

# Whether PID is still one of our switchboard processes (a recycled PID is left alone).
ours() {
    alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q "switchboard.* serve "
}

stop_nodes() {
    [[ -f "$dir/nodes" ]] || return 0
    local n pid url
    while read -r n pid url; do
        if ours "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
    done <"$dir/nodes"
    while read -r n pid url; do
        for _ in $(seq 150); do ours "$pid" || break; sleep 0.1; done
        if ours "$pid"; then
            log "node $n (PID $pid) still up after 15 s: SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done <"$dir/nodes"
    rm -f "$dir/nodes" "$dir/pids" "$dir/urls"
}

stop_redis() {
    if [[ -f "$dir/redis/external" ]]; then rm -f "$dir/redis/external"; return 0; fi
    if [[ -x scripts/test-redis.sh ]]; then
        scripts/test-redis.sh stop "$dir/redis" || true
    elif [[ -s "$dir/redis/redis.pid" ]]; then
        local pid
        pid=$(cat "$dir/redis/redis.pid")
        if alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q redis-server; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 100); do alive "$pid" || break; sleep 0.05; done
            alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$dir/redis/redis.pid"
    fi
}

stop_haproxy() {
    [[ -s "$dir/haproxy/haproxy.pid" ]] || return 0
    local pid
    pid=$(cat "$dir/haproxy/haproxy.pid")
    if alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q haproxy; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do alive "$pid" || break; sleep 0.05; done
        alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/haproxy/haproxy.pid"
}

# HAProxy in front of the nodes: docker/haproxy.cfg with loopback addresses.
start_haproxy() {
    command -v haproxy >/dev/null || { log "HAPROXY=1 but no haproxy (apt-get install haproxy)"; return 1; }
    mkdir -p "$dir/haproxy"
    lbport=$(free_port) && adminport=$(free_port) || { log "no free port for HAProxy"; return 1; }
    {
        sed -e "s|^\(\s*bind\) :8080$|\1 127.0.0.1:$lbport|" -e "s|^\(\s*bind\) :8404$|\1 127.0.0.1:$adminport|" \
            -e "s|^\(\s*maxconn\) 60000$|\1 9000|" -e "s| resolvers docker init-addr last,libc,none resolve-prefer ipv4||" \
            -e '/^\s*server node[0-9]/d' docker/haproxy.cfg
        for n in $(seq "$nodes"); do echo "    server node$n 127.0.0.$n:$port"; done
    } >"$dir/haproxy/haproxy.cfg"
    haproxy -c -q -f "$dir/haproxy/haproxy.cfg" || { log "generated $dir/haproxy/haproxy.cfg is invalid"; return 1; }
    haproxy -db -f "$dir/haproxy/haproxy.cfg" </dev/null >"$dir/haproxy/haproxy.log" 2>&1 &
    echo $! >"$dir/haproxy/haproxy.pid"
    local deadline=$((SECONDS + ${READY_TIMEOUT:-60})) up
    # Ready when every node is UP in HAProxy's view (its first health checks passed).
    while (( SECONDS < deadline )); do
        up=$(curl -s -m 2 "http://127.0.0.1:$adminport/stats;csv" 2>/dev/null | awk -F, '$1=="nodes" && $2 ~ /^node/ && $18=="UP"' | wc -l)
        (( up == nodes )) && return 0
        sleep 0.2
    done
    log "HAProxy did not see every node UP within ${READY_TIMEOUT:-60} s; its log:"
    tail -20 "$dir/haproxy/haproxy.log" >&2 || true
    return 1
}

stop_all() {
    stop_haproxy
    stop_nodes
    stop_redis
    scripts/test-postgres.sh stop "$dir/pg" || true
    rm -f "$dir/env"
}

free_port() {
    local p i busy
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 10000))
        busy=0
        for i in $(seq "$nodes"); do
            if (echo >"/dev/tcp/127.0.0.$i/$p") 2>/dev/null; then busy=1; break; fi
        done
        if (( ! busy )); then echo "$p"; return 0; fi
    done
    return 1
}

# Waits for http://127.0.0.N:PORT/readyz to answer 200, at most READY_TIMEOUT seconds, while PID lives.
wait_ready() {
    local n=$1 pid=$2 deadline=$((SECONDS + ${READY_TIMEOUT:-60}))
    while (( SECONDS < deadline )); do
        if ! alive "$pid"; then
            log "node $n (PID $pid) exited; its log:"
            tail -20 "$dir/node-$n/node.log" >&2 || true
            return 1
        fi
        if [[ $(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.$n:$port/readyz" 2>/dev/null) == 200 ]]; then
            return 0
        fi
        sleep 0.2
    done
    log "node $n (PID $pid) not ready within ${READY_TIMEOUT:-60} s; its log:"
    tail -20 "$dir/node-$n/node.log" >&2 || true
    return 1
}

start_node() {
    local n=$1
    mkdir -p "$dir/node-$n"
    # stdin from /dev/null and output to a file: the caller's pipes are not held open by the node.
    "$bin" serve --host "127.0.0.$n" --port "$port" --database-url "$db" "${redis_args[@]}" \
        --data-dir "$dir/node-$n" ${SERVE_ARGS:-} </dev/null >"$dir/node-$n/node.log" 2>&1 &
    local pid=$!
    echo "$n $pid ws://127.0.0.$n:$port/ws" >>"$dir/nodes"
    echo "$pid"
}

case "$cmd" in
start)
    [[ "$nodes" =~ ^[0-9]+$ ]] && (( nodes >= 1 && nodes <= 254 )) || { log "NODES must be 1..254"; exit 2; }
    bin=${SWITCHBOARD_BIN:-}
    if [[ -z "$bin" ]]; then
        for b in .build-rel/release/switchboard .build/release/switchboard .build/debug/switchboard; do
            [[ -x "$b" ]] && { bin=$b; break; }
        done
    fi
    [[ -n "$bin" && -x "$bin" ]] || { log "no server binary (swift build -c release --product switchboard, or SWITCHBOARD_BIN)"; exit 2; }
    if [[ -f "$dir/nodes" ]] && [[ -s "$dir/nodes" ]]; then log "$dir already holds a running cluster (stop it first)"; exit 2; fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    chmod 755 "$dir"
    trap 'log "start failed: stopping what was started"; stop_all' ERR
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

    eval "$(scripts/test-postgres.sh start "$dir/pg")"
    db=$SWITCHBOARD_TEST_DATABASE_URL

    mkdir -p "$dir/redis"
    if [[ -n "${REDIS_URL:-}" ]]; then
        redis=$REDIS_URL
        touch "$dir/redis/external"
    elif [[ -x scripts/test-redis.sh ]]; then
        eval "$(scripts/test-redis.sh start "$dir/redis")"
        redis=$SWITCHBOARD_TEST_REDIS_URL
    else
        rport=""
        for _ in $(seq 50); do
            c=$((30000 + RANDOM % 30000))
            if ! (echo >"/dev/tcp/127.0.0.1/$c") 2>/dev/null; then rport=$c; break; fi
        done
        [[ -n "$rport" ]] || { log "no free port for Redis"; false; }
        redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
            --dir "$dir/redis" </dev/null >"$dir/redis/redis.log" 2>&1 &
        echo $! >"$dir/redis/redis.pid"
        for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$rport") 2>/dev/null && break; sleep 0.05; done
        (echo >"/dev/tcp/127.0.0.1/$rport") 2>/dev/null || { log "redis-server did not start"; cat "$dir/redis/redis.log" >&2; false; }
        redis=redis://127.0.0.1:$rport
    fi

    redis_args=()
    # (The help text is read whole first: `grep -q` on a pipe would end it early and, with pipefail, fail.)
    help=$("$bin" serve --help 2>/dev/null || true)
    if [[ "$help" == *--redis-url* ]]; then
        redis_args=(--redis-url "$redis")
    else
        log "this server has no --redis-url: $nodes independent nodes sharing one PostgreSQL (no live delivery between them)"
    fi

    port=${CLUSTER_PORT:-$(free_port)}
    : >"$dir/nodes"
    # Node 1 first (it migrates a fresh database), then the others together.
    pid1=$(start_node 1)
    wait_ready 1 "$pid1" || false
    declare -A started=()
    for n in $(seq 2 "$nodes"); do started[$n]=$(start_node "$n"); done
    for n in $(seq 2 "$nodes"); do wait_ready "$n" "${started[$n]}" || false; done
    if [[ "${HAPROXY:-0}" == 1 ]]; then start_haproxy || false; fi
    trap - ERR

    awk '{print $2}' "$dir/nodes" >"$dir/pids"
    awk '{print $3}' "$dir/nodes" >"$dir/urls"
    {
        echo "export CLUSTER_DIR='$dir'"
        echo "export CLUSTER_URLS='$(paste -sd' ' "$dir/urls")'"
        echo "export CLUSTER_PIDS='$(paste -sd' ' "$dir/pids")'"
        echo "export CLUSTER_DATABASE_URL='$db'"
        echo "export CLUSTER_REDIS_URL='$redis'"
        if [[ "${HAPROXY:-0}" == 1 ]]; then
            echo "export CLUSTER_LB_URL='ws://127.0.0.1:$lbport/ws'"
            echo "export CLUSTER_LB_ADMIN='http://127.0.0.1:$adminport'"
        fi
    } >"$dir/env"
    log "$nodes node(s) ready on port $port: $(paste -sd' ' "$dir/pids") (logs in $dir/node-N/node.log)"
    cat "$dir/env"
    ;;
stop)
    [[ -d "$dir" ]] || exit 0
    dir=$(cd "$dir" && pwd)
    stop_all
    ;;
status)
    [[ -f "$dir/nodes" ]] || { log "no cluster in $dir"; exit 1; }
    while read -r n pid url; do
        state=down
        if ours "$pid"; then
            hp=${url#ws://}; hp=${hp%%/*}
            code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$hp/readyz" 2>/dev/null || true)
            [[ "$code" == 200 ]] && state=ready || state="up (readyz $code)"
        fi
        echo "$n $pid $url $state"
    done <"$dir/nodes"
    if [[ -s "$dir/haproxy/haproxy.pid" ]] && alive "$(cat "$dir/haproxy/haproxy.pid")"; then
        admin=$(sed -n "s/^export CLUSTER_LB_ADMIN='\(.*\)'$/\1/p" "$dir/env")
        curl -s -m 2 "$admin/stats;csv" | awk -F, '$1=="nodes" && $2 ~ /^node/ {print "haproxy " $2 " " $18 " " $5 " current sessions, " $8 " in all"}'
    fi
    ;;
*) echo "usage: $0 start|stop|status DIR [NODES=3]" >&2; exit 2 ;;
esac
