#!/usr/bin/env bash
# deploy/switchboard.service under a real systemd (issue 37, item 7): a Debian root file system made with debootstrap
# from the package mirror, booted with `systemd-nspawn -b` (systemd as PID 1 of the container), the unit installed as
# docs/operations.md says, and then:
#   1. start: `systemctl start` returns once the server sent READY=1 (Type=notify), after the embedded PostgreSQL
#      ran initdb and started inside the unit's sandbox (ProtectSystem=strict, PrivateTmp, the system-call filter,
#      no capabilities) and the migrations ran; /readyz answers 200;
#   2. kill -9 of the main process: systemd restarts it (Restart=on-failure, RestartSec=2s) and it is ready again;
#      KillMode=mixed left no PostgreSQL of the killed server behind;
#   3. the watchdog: the main process stopped with SIGSTOP stops its WATCHDOG=1 pings; after WatchdogSec systemd
#      kills it (SIGABRT) and restarts it, ready again;
#   4. stop: `systemctl stop` drains, the server stops its PostgreSQL and exits 0 (Result=success); nothing left.
# Prints a transcript (the steps, their seconds, `systemctl show` and the unit's journal) and exits 0 when every step
# held, 1 when one did not, 2 when the container could not be set up. Not part of the test command (it needs root,
# debootstrap and systemd-container, and takes about two minutes plus the debootstrap the first time).
#
# Usage: scripts/systemd-check.sh [ROOTFS]   (default /var/tmp/switchboard-nspawn/root, made when missing)
# Environment: SWITCHBOARD_BIN (default .build/debug/switchboard), PORT (default 18080: the container shares the
# host's network), MIRROR (default http://deb.debian.org/debian).
# Bounded: every wait times out; the container is powered off (and its systemd-nspawn stopped by PID) at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/var/tmp/switchboard-nspawn/root}
bin=${SWITCHBOARD_BIN:-.build/debug/switchboard}
port=${PORT:-18080}
mirror=${MIRROR:-http://deb.debian.org/debian}
[[ $(id -u) == 0 ]] || { echo "needs root (debootstrap, systemd-nspawn)" >&2; exit 2; }
[[ -x "$bin" ]] || { echo "no $bin (swift build --product switchboard)" >&2; exit 2; }
for tool in debootstrap systemd-nspawn nsenter curl; do
    command -v $tool >/dev/null || { echo "needs $tool (apt-get install debootstrap systemd-container)" >&2; exit 2; }
done

if [[ ! -x "$root/lib/systemd/systemd" ]]; then
    echo "== debootstrap bookworm into $root"
    mkdir -p "$root"
    debootstrap --variant=minbase \
        --include=systemd,systemd-sysv,dbus,libssl3,libargon2-1,libvips42,libopusenc0,libopusfile0,libopus0,libogg0,libhiredis0.14,libcurl4,libpq5,zlib1g,postgresql-15,procps \
        bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 2; }
fi
# A root made before the server linked libcurl (issue 37, the SMS gateway) lacks it.
if ! chroot "$root" dpkg -s libcurl4 >/dev/null 2>&1; then
    echo "== add libcurl4 to $root"
    chroot "$root" apt-get install -y -qq --no-install-recommends libcurl4 >/dev/null ||
        { echo "could not install libcurl4 into $root: delete it and run again" >&2; exit 2; }
fi

echo "== install the unit as docs/operations.md says"
chroot "$root" id switchboard >/dev/null 2>&1 ||
    chroot "$root" useradd --system --home-dir /var/lib/switchboard --shell /usr/sbin/nologin switchboard
install -m 0755 "$bin" "$root/usr/local/bin/switchboard"
rm -rf "$root/usr/share/switchboard" && mkdir -p "$root/usr/share/switchboard" && cp -r web "$root/usr/share/switchboard/web"
install -d -m 0750 "$root/etc/switchboard"
install -m 0644 deploy/switchboard.service "$root/etc/systemd/system/switchboard.service"
# The one change to the shipped unit: the port (the container shares the host's network).
install -d "$root/etc/systemd/system/switchboard.service.d"
printf '[Service]\nEnvironment=SWITCHBOARD_PORT=%s\n' "$port" >"$root/etc/systemd/system/switchboard.service.d/port.conf"
rm -rf "$root/var/lib/switchboard"   # a first start: initdb inside the sandbox
binds=()
# A debug build links the Swift runtime from the toolchain: the same path, read-only.
if [[ $(ldd "$bin") == */opt/swift/* ]]; then mkdir -p "$root/opt/swift"; binds+=(--bind-ro=/opt/swift); fi

echo "== boot: systemd-nspawn -b"
log=$(mktemp /tmp/switchboard-nspawn.XXXXXX.log)
# --register=no --keep-unit: no machined or host systemd needed (the host may have neither).
systemd-nspawn -D "$root" --register=no --keep-unit "${binds[@]}" -b --console=passive >"$log" 2>&1 &
nspawn=$!
leader=""
cleanup() {
    if [[ -n "$leader" ]] && kill -0 "$leader" 2>/dev/null; then
        nsenter -t "$leader" -a /bin/systemctl poweroff >/dev/null 2>&1 || true
    fi
    for _ in $(seq 60); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.5; done
    kill "$nspawn" 2>/dev/null || true
    wait "$nspawn" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 100); do leader=$(pgrep -P "$nspawn" | head -1 || true); [[ -n "$leader" ]] && break; sleep 0.1; done
[[ -n "$leader" ]] || { cat "$log"; exit 2; }
c() { nsenter -t "$leader" -a "$@"; }
state=""
for _ in $(seq 120); do
    state=$(c /bin/systemctl is-system-running 2>/dev/null || true)
    [[ $state == running || $state == degraded ]] && break
    sleep 0.5
done
echo "container systemd (PID 1 inside, $leader outside): $state"
[[ $state == running || $state == degraded ]] || { cat "$log"; exit 2; }

failed=0
check() { if eval "$2"; then echo "PASS $1"; else echo "FAIL $1"; failed=1; fi; }
show() { c /bin/systemctl show switchboard -p "$1" --value; }
ready() { [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/readyz") == 200 ]]; }
wait_for() { # seconds, condition
    local until=$((SECONDS + $1))
    while ((SECONDS < until)); do eval "$2" && return 0; sleep 0.2; done
    return 1
}
elapsed() { printf '%.1f' "$(( ($(date +%s%N) - $1) / 1000000 ))e-3"; }
postgres_left() { c /usr/bin/pgrep -c -u switchboard postgres 2>/dev/null || true; }

echo "== 1. start (Type=notify; initdb of the embedded PostgreSQL inside the sandbox)"
t=$(date +%s%N)
c /bin/systemctl start switchboard || c /bin/journalctl -u switchboard --no-pager | tail -20
echo "systemctl start returned after $(elapsed $t) s"
c /bin/systemctl show switchboard -p Type,ActiveState,SubState,StatusText,WatchdogUSec,NRestarts,ProtectSystem
check "ready at once (READY=1 came after the database and the migrations)" "ready"
check "active (running)" '[[ $(show SubState) == running ]]'
first=$(show MainPID)

echo "== 2. kill -9 of the main process ($first)"
t=$(date +%s%N)
c /bin/systemctl kill -s SIGKILL --kill-who=main switchboard
check "restarted by systemd and ready again within 60 s" \
    'wait_for 60 "[[ \$(show NRestarts) == 1 && \$(show SubState) == running ]] && ready"'
echo "back and ready $(elapsed $t) s after the kill; MainPID $(show MainPID)"
check "the killed server's PostgreSQL did not survive it (KillMode=mixed): one cluster running" \
    '[[ $(c /usr/bin/pgrep -u switchboard -f "postgres -D" | wc -l) == 1 ]]'

echo "== 3. the watchdog: SIGSTOP the main process, WatchdogSec=$(show WatchdogUSec)"
t=$(date +%s%N)
c /bin/systemctl kill -s SIGSTOP --kill-who=main switchboard
# (SIGABRT stays pending on a stopped process: the SIGKILL after TimeoutAbortSec, here TimeoutStopSec, ends it.)
check "killed by the watchdog and restarted, ready again within 120 s" \
    'wait_for 120 "[[ \$(show NRestarts) == 2 && \$(show SubState) == running ]] && ready"'
echo "back and ready $(elapsed $t) s after the SIGSTOP"
journal() { c /bin/journalctl -b -u switchboard --no-pager "$@"; }
check "the journal says it was the watchdog" '[[ $(journal) == *"Watchdog timeout"* ]]'

echo "== 4. stop"
t=$(date +%s%N)
c /bin/systemctl stop switchboard
echo "systemctl stop returned after $(elapsed $t) s"
check "inactive, exited cleanly (Result=success)" '[[ $(show ActiveState) == inactive && $(show Result) == success ]]'
check "no PostgreSQL left" '[[ $(postgres_left) == 0 ]]'

check "no notification from any process but the main one (children do not inherit NOTIFY_SOCKET)" \
    '[[ $(journal) != *"reception only permitted for main PID"* ]]'
echo "== the unit's journal of this boot (systemd's lines and the server's start, stop and errors)"
journal -o short-monotonic | grep -E "systemd\[1\]|Embedded PostgreSQL|schema ready|listening|stopped|error|critical" |
    grep -v "Applied migration" | cut -c1-200 || true
exit $failed
