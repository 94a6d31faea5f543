#!/usr/bin/env bash
# Heap per idle authenticated connection (issue 17, item 5) and where it goes. RSS (budget-idle.sh) can grow by less
# than the connections hold (they reuse pages the setup freed) or by more (arenas' free pages), so this reads the
# server's own count of its heap in use, `switchboard_heap_bytes` on /metrics (glibc mallinfo2: live chunks with
# their headers), before and after `switchboard-load idle` opens N connections (USERS_PER per user, default 2).
#
# Then, with heaptrack installed (SITES=0 skips it), a second round under heaptrack lists the allocation sites with
# at least N/2 allocations, with their live bytes per connection (requested sizes: glibc adds 8-24 bytes to each)
# and their calls (heaptrack counts every call of the site, freed or not: the setup's connections too). The
# server is stopped with SIGKILL while it holds the connections, so what it holds counts as "leaked"; /metrics is
# read a hundred times first so heaptrack's buffer reaches its file.
#
# Usage: loadtest/idle-heap.sh [N=3000]
# Environment: SWITCHBOARD_BIN, LOAD_BIN (release builds), USERS_PER (default 2), SERVER_ARGS (extra serve flags),
# SITES (1: the heaptrack round, the default when heaptrack is installed), KEEP=DIR (keep heaptrack_print's report).
# Bounded: every wait times out; servers are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3000}
per=${USERS_PER:-2}
bin=${SWITCHBOARD_BIN:-.build-rel/release/switchboard}
load=${LOAD_BIN:-.build-rel/release/switchboard-load}
for b in "$bin" "$load"; do
    [[ -x "$b" ]] || { echo "no $b (swift build -c release --scratch-path .build-rel --product switchboard --product switchboard-load)" >&2; exit 2; }
done
sites=${SITES:-}
if [[ -z "$sites" ]]; then
    if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null; then sites=1; else sites=0; fi
fi
work=$(mktemp -d /tmp/idle-heap.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    scripts/test-postgres.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"

round() { # round N TRACED(0|1): one server, N idle connections; traced: heaptrack_print's report in $work/leaks.txt
    local n=$1 traced=$2 port hpid spid lpid
    local dir="$work/r$traced"
    mkdir -p "$dir"
    eval "$(scripts/test-postgres.sh start "$work/pg")"
    port=$((20000 + RANDOM % 9000))
    local tracer=()
    [[ "$traced" == 1 ]] && tracer=(heaptrack -o "$dir/ht")
    # shellcheck disable=SC2086
    "${tracer[@]}" "$bin" serve --host 127.0.0.1 --port "$port" --database-url "$SWITCHBOARD_TEST_DATABASE_URL" \
        --max-connections 100000 --register-burst-per-address 1000000 --log-level warning ${SERVER_ARGS:-} \
        >"$dir/server.log" 2>&1 &
    hpid=$!
    pids+=("$hpid")
    for _ in $(seq 600); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
    # The server itself: under heaptrack its wrapper script's command line has the same arguments.
    spid=$(pgrep -f "^$bin serve --host 127.0.0.1 --port $port " | head -1 || true)
    [[ -n "$spid" ]] || { echo "no server process" >&2; cat "$dir/server.log" >&2; exit 1; }
    pids+=("$spid")
    local hold=5
    [[ "$traced" == 1 ]] && hold=120
    "$load" idle --url "ws://127.0.0.1:$port/ws" --connections "$n" --users $(( (n + per - 1) / per )) --hold "$hold" \
        --server-pid "$spid" --max-authenticate-p99-ms 100000 --report "$dir/report.json" >"$dir/load.log" 2>&1 &
    lpid=$!
    pids+=("$lpid")
    if [[ "$traced" == 0 ]]; then
        wait "$lpid" || true
        kill "$spid" 2>/dev/null || true
        wait "$hpid" 2>/dev/null || true
    else
        local open=0
        for _ in $(seq 1200); do
            open=$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "switchboard_websockets" {print int($2)}')
            [[ "${open:-0}" -ge "$n" ]] && break
            sleep 0.25
        done
        [[ "${open:-0}" -ge "$n" ]] || { echo "only ${open:-0} of $n connections open" >&2; cat "$dir/load.log" >&2; exit 1; }
        sleep 2
        for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; done
        sleep 1
        kill -9 "$spid"
        wait "$hpid" 2>/dev/null || true
        kill "$lpid" 2>/dev/null || true
        wait "$lpid" 2>/dev/null || true
        heaptrack_print -f "$dir"/ht.*zst --print-leaks 1 --print-peaks 0 --print-allocators 0 --print-temporary 0 \
            --peak-limit 200 --sub-peak-limit 200 >"$work/leaks.txt" 2>/dev/null
    fi
    scripts/test-postgres.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work/pg"
}

echo "round 1: $n connections, $per per user" >&2
round "$n" 0
python3 - "$work/r0/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['opened']} of {r['connections']} connections ({r['users']} users), result {r['result']}")
if r.get('heapBytesPerConnection') is not None:
    print(f"heap in use: {r['heapBytesBefore']} -> {r['heapBytesAfter']} bytes: {r['heapBytesPerConnection']} bytes per connection")
if r.get('bytesPerConnection') is not None:
    print(f"RSS: {r['rssBytesBefore']} -> {r['rssBytesAfter']} bytes: {r['bytesPerConnection']} bytes per connection")
PY
[[ "$sites" == 1 ]] || exit 0
echo "round 2: $n connections under heaptrack" >&2
round "$n" 1
[[ -z "${KEEP:-}" ]] || { mkdir -p "$KEEP"; cp "$work/leaks.txt" "$KEEP"/; }
python3 - "$work/leaks.txt" "$n" <<'PY'
import re, sys
path, n = sys.argv[1], int(sys.argv[2])
units = {'K': 1e3, 'M': 1e6, 'G': 1e9}
def b(s):
    return float(s[:-1]) * units[s[-1]] if s[-1] in units else float(s.rstrip('B'))
lines = open(path).read().split('\n')
sites = []  # (bytes, calls, first own frame)
skip = re.compile(r'swift_allocObject|swift_slowAlloc|libswiftCore|^\s+(at|in) |malloc|calloc|realloc|_swift_stdlib|'
                  r'allocate|Storage|Buffer|_Native|Dictionary|Array|^\s+\$ss|operator new')
for i, line in enumerate(lines):
    m = re.match(r'^\s*(\S+) leaked over (\d+) calls from:', line)
    if not m:
        continue
    frame = ''
    for nxt in lines[i + 1:i + 20]:
        if nxt.strip() == '' or 'leaked over' in nxt:
            break
        if not skip.search(nxt):
            frame = nxt.strip()
            break
    sites.append((b(m.group(1)), int(m.group(2)), frame))
big = sorted([s for s in sites if s[1] >= n // 2], reverse=True)
total = sum(s[0] for s in big) / n
print(f"heaptrack: sites called at least {n // 2} times, live at {n} connections: {total:.0f} bytes per connection")
for size, calls, frame in big:
    print(f"  {size / n:7.1f} B/connection live  {calls:7d} calls  {frame[:150]}")
PY
