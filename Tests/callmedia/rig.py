# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""The rig of Tests/callmedia/test_call_media.py: terminal clients, coturn, network namespaces, sox analysis.

Everything started here is stopped by PID (or deleted by name) through `cleanup()`, which the test file runs at
the end, on a failure and from its watchdog. Every wait is bounded.
"""

import json
import os
import random
import re
import shutil
import signal
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("SWITCHBOARD_CLI_BIN", os.path.join(ROOT, ".build/debug/switchboard-cli"))
IP = shutil.which("ip", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") or "ip"
TC = shutil.which("tc", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") or "tc"
TURNSERVER = shutil.which("turnserver", path=os.environ.get("PATH", "") + ":/usr/bin:/usr/sbin") or "turnserver"
PASSWORD = "a long media test pass 42"

_CLEANUPS = []          # callables, run last-in first-out by cleanup()
SESSIONS = []           # every Session started (a test stops its own when it ends: stop_sessions_from)
_cleanup_lock = threading.Lock()


def on_cleanup(fn):
    with _cleanup_lock:
        _CLEANUPS.append(fn)
    return fn


def cleanup():
    """Runs every registered cleanup once (last registered first); never raises."""
    while True:
        with _cleanup_lock:
            if not _CLEANUPS:
                return
            fn = _CLEANUPS.pop()
        try:
            fn()
        except Exception as e:  # keep cleaning
            print(f"  cleanup: {e}", flush=True)


def stop_sessions_from(index):
    """Stops every Session started since SESSIONS had `index` entries (a test's own, also after a failure)."""
    for session in SESSIONS[index:]:
        session.stop(grace=5)


def run(args, timeout=20, check=True, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip() or p.stdout.strip()}")
    return p


def stop_process(proc, name, grace=10):
    """SIGTERM, then SIGKILL after `grace` seconds; by PID only."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            print(f"  {name} (pid {proc.pid}) did not stop in {grace} s: killed", flush=True)
            proc.kill()
            proc.wait(5)
        except ProcessLookupError:
            pass


# MARK: terminal clients

class Terminal:
    """One person on the terminal client (`switchboard-cli`), with their own config folder."""

    def __init__(self, work, server_url, name, netns=None):
        self.work = work
        self.name = name
        self.phone = "+1555" + "".join(random.choice("0123456789") for _ in range(7))
        self.config = os.path.join(work, f"cli-{name}")
        self.server_url = server_url
        self.netns = netns

    def env(self, extra=None):
        env = dict(os.environ)
        for k in ("SWITCHBOARD_PASSWORD", "SWITCHBOARD_CONFIG_DIR", "SWITCHBOARD_PROFILE"):
            env.pop(k, None)
        env["SWITCHBOARD_URL"] = self.server_url
        env["NO_COLOR"] = "1"
        env["SWIFT_BACKTRACE"] = "enable=yes,interactive=no"
        env.update(extra or {})
        return env

    def argv(self, *args, server_url=None, netns=None):
        argv = [CLI, *args, "--config-dir", self.config, "--server", server_url or self.server_url]
        ns = netns or self.netns
        return ([IP, "netns", "exec", ns] if ns else []) + argv

    def cli(self, *args, stdin=None, timeout=30):
        p = subprocess.run(self.argv(*args), input=stdin, env=self.env(), capture_output=True, text=True,
                           timeout=timeout)
        if p.returncode != 0:
            raise AssertionError(f"switchboard-cli {' '.join(args)} ({self.name}): exit {p.returncode}\n"
                                 f"{p.stdout}{p.stderr}")
        return p.stdout

    def register(self):
        self.cli("register", "--phone", self.phone, "--name", self.name, "--password-stdin", stdin=PASSWORD + "\n")
        return self

    def befriend(self, other):
        """This person asks, the other (a Terminal) accepts."""
        self.cli("friends", "add", other.phone)
        other.cli("friends", "accept", self.phone)

    def start(self, *args, env_extra=None, server_url=None, netns=None, label=None, json=True):
        """Starts `switchboard-cli ARGS --json ...` (without --json when `json` is false) in the background (a
        Session reading its output)."""
        argv = self.argv(*args, *(["--json"] if json else []), server_url=server_url, netns=netns)
        return Session(argv, self.env(env_extra), os.path.join(self.work, f"{label or self.name}-{args[0]}.log"),
                       label or self.name)


class Session:
    """A running `call` or `listen`: its JSON lines (each with the wall-clock time it was read, `_t`) and the
    other lines it printed, stdin open for `h`/`/quit`."""

    def __init__(self, argv, env, log_path, name):
        self.name = name
        self.argv = argv
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.log.write("$ " + " ".join(argv) + "\n")
        self.log.flush()
        self.events = []
        self.text = []
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)
        on_cleanup(lambda: self.stop(grace=5))
        SESSIONS.append(self)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            now = time.time()
            self.log.write(f"{now:.3f} {line}")
            self.log.flush()
            line = line.strip()
            with self._cond:
                try:
                    event = json.loads(line)
                    if isinstance(event, dict):
                        event["_t"] = now
                        self.events.append(event)
                    else:
                        self.text.append(line)
                except ValueError:
                    self.text.append(line)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def of(self, type_):
        with self._cond:
            return [e for e in self.events if e.get("type") == type_]

    def wait(self, type_, timeout=20, where=None):
        """The first event of `type_` (matching `where(event)`); AssertionError with the output after `timeout`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for e in self.events:
                    if e.get("type") == type_ and (where is None or where(e)):
                        return e
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"{self.name}: no {type_} within {timeout} s (exit {self.proc.poll()});"
                                         f" output:\n{self.output()}")
                self._cond.wait(min(left, 0.2))

    def wait_text(self, needle, timeout=20):
        """The first line that is not JSON and contains `needle`; AssertionError after `timeout`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.text:
                    if needle in line:
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"{self.name}: no line with {needle!r} within {timeout} s (exit "
                                         f"{self.proc.poll()}); output:\n{self.output()}")
                self._cond.wait(min(left, 0.2))

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass

    def exit_code(self, timeout=20):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name}: still running after {timeout} s; output:\n{self.output()}")

    def output(self, last=60):
        try:
            with open(self.log_path) as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        return "\n".join(lines[-last:])

    def stop(self, grace=5):
        if self.proc.poll() is None:
            self.send("/quit")
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                stop_process(self.proc, self.name, grace)
        self._reader.join(5)
        if not self.log.closed:
            self.log.close()


# MARK: coturn

class Coturn:
    """Debian's coturn on 127.0.0.1 with the TURN REST scheme (`use-auth-secret`), its own listening port and
    relay range, loopback peers allowed (every client of the test is on 127.0.0.1); stopped by PID."""

    def __init__(self, work, secret, port, relay_ports):
        self.secret = secret
        self.port = port
        self.uri = f"turn:127.0.0.1:{port}?transport=udp"
        self.log_path = os.path.join(work, f"coturn-{port}.log")
        self._log = open(self.log_path, "w")
        args = [TURNSERVER, "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", "--listening-port", str(port),
                "--min-port", str(relay_ports[0]), "--max-port", str(relay_ports[1]),
                "--use-auth-secret", f"--static-auth-secret={secret}", "--realm=switchboard",
                "--no-cli", "--no-tls", "--no-dtls", "--no-tcp-relay", "--allow-loopback-peers",
                "--db", os.path.join(work, "turndb"), "--pidfile", os.path.join(work, "turnserver.pid"),
                "--log-file", "stdout", "--simple-log", "--no-software-attribute", "--verbose"]
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT)
        on_cleanup(self.stop)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"turnserver exited with {self.proc.returncode}:\n{self.log_tail()}")
            if "IO method" in self.log_tail(100_000) or "Total General servers" in self.log_tail(100_000):
                if self._udp_bound():
                    return
            time.sleep(0.1)
        raise AssertionError(f"turnserver did not start listening within 10 s:\n{self.log_tail()}")

    def _udp_bound(self):
        p = run(["ss", "-Hlun", f"sport = :{self.port}"], check=False, timeout=5)
        return str(self.port) in p.stdout

    def log_tail(self, chars=3000):
        try:
            with open(self.log_path) as f:
                return f.read()[-chars:]
        except OSError:
            return ""

    def allocations(self):
        """How many relay allocations coturn logged as created."""
        return len(re.findall(r"ALLOCATE processed, success", self.log_tail(10_000_000)))

    def stop(self):
        stop_process(self.proc, "turnserver")
        if not self._log.closed:
            self._log.close()


# MARK: network namespaces

class NetnsPair:
    """Two named network namespaces (A, B), each joined by a veth pair to the namespace the test runs in, which
    routes between them (ip_forward) and where the server listens on 0.0.0.0:

        A 10.201.1.2 -- 10.201.1.1 [this namespace: server] 10.201.2.1 -- 10.201.2.2 B

    `impair(...)` adds delay and loss to each direction of the path between A and B (tc netem, or a userspace
    equivalent when the kernel has no netem). `delete()` removes both namespaces (and so the veths); it is
    registered for cleanup."""

    SUBNETS = ("10.201.1", "10.201.2")

    def __init__(self, tag):
        self.names = (f"{tag}a", f"{tag}b")
        self.hub_ifs = ("sbmva0", "sbmvb0")
        self.hub_addrs = tuple(f"{s}.1" for s in self.SUBNETS)
        self.addrs = tuple(f"{s}.2" for s in self.SUBNETS)
        on_cleanup(self.delete)
        for ns, hub_if, subnet in zip(self.names, self.hub_ifs, self.SUBNETS):
            run([IP, "netns", "add", ns])
            run([IP, "link", "add", hub_if, "type", "veth", "peer", "name", "eth0", "netns", ns])
            run([IP, "addr", "add", f"{subnet}.1/24", "dev", hub_if])
            run([IP, "link", "set", hub_if, "up"])
            run([IP, "-n", ns, "link", "set", "lo", "up"])
            run([IP, "-n", ns, "addr", "add", f"{subnet}.2/24", "dev", "eth0"])
            run([IP, "-n", ns, "link", "set", "eth0", "up"])
            run([IP, "-n", ns, "route", "add", "default", "via", f"{subnet}.1"])
        with open("/proc/sys/net/ipv4/ip_forward", "w") as f:   # this namespace's own setting
            f.write("1\n")
        # the path works both ways before any test relies on it
        # (a TCP connection to a closed port of B from A: "refused" comes back only when both directions route)
        probe = ("import socket,sys\ns=socket.socket();s.settimeout(3)\ntry: s.connect((sys.argv[1],9))\n"
                 "except ConnectionRefusedError: sys.exit(0)\nexcept OSError as e: sys.exit(str(e))\n")
        run([IP, "netns", "exec", self.names[0], "python3", "-c", probe, self.addrs[1]], timeout=10)

    def impair(self, delay_ms=50, loss_pct=5):
        """Adds `delay_ms` of delay and `loss_pct` % of random loss to each direction between A and B; returns how:
        "tc netem" (on the hub's ends of both veths: `tc qdisc add dev IF root netem delay 50ms loss 5%`, which
        also delays what the server sends to each client), or, when the kernel has no netem (CONFIG_NET_SCH_NETEM
        unset: "Specified qdisc kind is unknown"), "userspace netem": policy routing sends only what is forwarded
        between A and B through a TUN device whose reader (Impairer) drops and delays it the same way."""
        spec = ["delay", f"{delay_ms}ms", "loss", f"{loss_pct}%"]
        p = run([TC, "qdisc", "add", "dev", self.hub_ifs[0], "root", "netem", *spec], check=False)
        if p.returncode == 0:
            run([TC, "qdisc", "add", "dev", self.hub_ifs[1], "root", "netem", *spec])
            self.how = "tc netem"
            return self.how
        if "unknown" not in (p.stderr + p.stdout).lower():
            raise AssertionError(f"tc netem: {p.stderr.strip()}")
        self.impairer = Impairer("sbmimp0", delay_ms / 1000.0, loss_pct / 100.0)
        on_cleanup(self.impairer.stop)
        for pref, hub_if, other in ((1001, self.hub_ifs[0], self.SUBNETS[1]), (1002, self.hub_ifs[1], self.SUBNETS[0])):
            run([IP, "rule", "add", "pref", str(pref), "iif", hub_if, "to", f"{other}.0/24", "lookup", "201"])
        run([IP, "route", "add", "default", "dev", "sbmimp0", "table", "201"])
        self.how = "userspace netem (TUN; the kernel has no netem)"
        return self.how

    def clear_impairment(self):
        for hub_if in self.hub_ifs:
            run([TC, "qdisc", "del", "dev", hub_if, "root"], check=False)
        for pref in (1001, 1002):
            run([IP, "rule", "del", "pref", str(pref)], check=False)
        if getattr(self, "impairer", None):
            self.impairer.stop()

    def impairment_counts(self):
        """Packets that went through the impairment and how many were dropped, for the log."""
        if getattr(self, "impairer", None):
            return f"{self.impairer.passed} packets delayed, {self.impairer.dropped} dropped"
        out = []
        for hub_if in self.hub_ifs:
            p = run([TC, "-s", "qdisc", "show", "dev", hub_if], check=False)
            m = re.search(r"qdisc netem.*?Sent (\d+) bytes (\d+) pkt \(dropped (\d+)", p.stdout, re.S)
            if m:
                out.append(f"{hub_if}: {m.group(2)} packets sent, {m.group(3)} dropped")
        return "; ".join(out)

    def delete(self):
        self.clear_impairment()
        for ns in self.names:
            run([IP, "netns", "del", ns], check=False)
        for hub_if in self.hub_ifs:
            run([IP, "link", "del", hub_if], check=False)


class Impairer:
    """A userspace netem: a TUN device whose reader drops each IP packet with probability `loss` and writes the
    others back `delay` seconds later (the kernel then forwards them on by the main table). Runs in a thread."""

    TUNSETIFF = 0x400454CA
    IFF_TUN = 0x0001
    IFF_NO_PI = 0x1000

    def __init__(self, name, delay, loss):
        import fcntl
        import struct
        self.name, self.delay, self.loss = name, delay, loss
        self.passed = self.dropped = 0
        self._random = random.Random()
        self._fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(self._fd, self.TUNSETIFF, struct.pack("16sH", name.encode(), self.IFF_TUN | self.IFF_NO_PI))
        run([IP, "link", "set", name, "up"])
        # packets come back in on the TUN device from addresses routed elsewhere: no reverse-path filter
        for conf in ("all", "default", name):
            with open(f"/proc/sys/net/ipv4/conf/{conf}/rp_filter", "w") as f:
                f.write("0\n")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        import heapq
        import select
        queue, seq = [], 0
        while not self._stop.is_set():
            now = time.monotonic()
            while queue and queue[0][0] <= now:
                _, _, packet = heapq.heappop(queue)
                try:
                    os.write(self._fd, packet)
                except OSError:
                    pass
            wait = min(0.05, queue[0][0] - now) if queue else 0.05
            ready, _, _ = select.select([self._fd], [], [], max(0.0, wait))
            if not ready:
                continue
            while True:
                try:
                    packet = os.read(self._fd, 65536)
                except BlockingIOError:
                    break
                except OSError:
                    return
                if self._random.random() < self.loss:
                    self.dropped += 1
                    continue
                self.passed += 1
                seq += 1
                heapq.heappush(queue, (time.monotonic() + self.delay, seq, packet))

    def stop(self):
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(2)
        try:
            os.close(self._fd)     # the TUN device goes with its last descriptor
        except OSError:
            pass


def delete_stale_namespaces(prefix):
    """Namespaces named PREFIX<pid>a/b left by a run that was killed (its pid no longer alive)."""
    p = run([IP, "netns", "list"], check=False)
    for line in p.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        m = re.fullmatch(re.escape(prefix) + r"(\d+)[ab]", name)
        if m and not os.path.exists(f"/proc/{m.group(1)}"):
            run([IP, "netns", "del", name], check=False)


# MARK: sox

def make_tone(path, hz, seconds=10, volume=0.5):
    """A mono 48 kHz 16-bit WAV of a sine tone (Chromium's fake microphone plays it in a loop)."""
    run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", str(seconds), "sine", str(hz),
         "vol", str(volume)])
    return path


def analyse(path, skip=0.5, window=3.0):
    """What sox finds in a recording: {duration (s, whole file), rms (0..1, of the sounding part), rough_hz (sox's
    zero-crossing estimate), peak_hz (the strongest bin of sox's spectrum summed over `window` seconds of the
    sounding part, 11.7 Hz bins at 48 kHz)}. The sounding part starts where the level first rises above 1%,
    plus `skip` seconds (the first packets and any fade-in)."""
    duration = float(run(["soxi", "-D", path]).stdout.strip() or 0)
    base = path + ".mono.wav"
    run(["sox", path, "-c", "1", base, "silence", "1", "0.05", "1%"])
    sounding = float(run(["soxi", "-D", base]).stdout.strip() or 0)
    if sounding <= skip + 0.2:
        return {"duration": duration, "sounding": sounding, "rms": 0.0, "rough_hz": None, "peak_hz": None}
    part = path + ".part.wav"
    run(["sox", base, part, "trim", str(skip), str(min(window, sounding - skip))])
    stat = run(["sox", part, "-n", "stat"]).stderr
    rms = float(re.search(r"RMS\s+amplitude:\s+([\d.]+)", stat).group(1))
    rough = re.search(r"Rough\s+frequency:\s+(\d+)", stat)
    spectrum = run(["sox", part, "-n", "stat", "-freq"], timeout=60).stderr
    power = {}
    for line in spectrum.splitlines():
        fields = line.split()
        if len(fields) != 2:
            continue
        try:
            hz, p = float(fields[0]), float(fields[1])
        except ValueError:
            continue
        if hz > 0:
            power[hz] = power.get(hz, 0.0) + p
    peak = None
    if power:
        # the strongest bin, refined by the power-weighted mean of it and its two neighbours
        bins = sorted(power)
        i = max(range(len(bins)), key=lambda k: power[bins[k]])
        near = bins[max(0, i - 1):i + 2]
        total = sum(power[b] for b in near)
        peak = sum(b * power[b] for b in near) / total if total > 0 else bins[i]
    return {"duration": duration, "sounding": sounding, "rms": rms, "rough_hz": int(rough.group(1)) if rough else None,
            "peak_hz": peak}


def check_tone(path, hz, min_seconds, who):
    """AssertionError unless the recording lasts `min_seconds`, is clearly above silence and its dominant
    frequency is within 3% of `hz`; returns the analysis."""
    if not os.path.exists(path):
        raise AssertionError(f"{who}: no recording at {path}")
    a = analyse(path)
    print(f"  {who}: recording {a['duration']:.2f} s ({a['sounding']:.2f} s sounding), RMS {a['rms']:.3f}, "
          f"dominant {a['peak_hz'] or 0:.0f} Hz (zero crossings {a['rough_hz']} Hz); expected {hz} Hz", flush=True)
    assert a["duration"] >= min_seconds, f"{who}: recording of {a['duration']:.2f} s, expected >= {min_seconds} s"
    assert a["rms"] >= 0.02, f"{who}: recording too quiet (RMS {a['rms']:.4f})"
    assert a["peak_hz"] is not None and abs(a["peak_hz"] - hz) <= 0.03 * hz, \
        f"{who}: dominant frequency {a['peak_hz']} Hz, expected {hz} Hz +-3%"
    return a
