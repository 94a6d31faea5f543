# SPDX-License-Identifier: Apache-2.0
# What the Python benchmarks in loadtest/ share: the server they start (with /readyz, /metrics and a bounded
# stop), PostgreSQL through psql, percentiles, and one protocol connection whose replies are matched by id.
# Imported by ops-bench.py and community-bench.py (they run from any directory: this folder is on sys.path).
import asyncio, base64, hashlib, json, os, re, resource, shutil, socket, subprocess, sys, time
import urllib.request
import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def server_binary(prefer_release=False):
    """$SWITCHBOARD_SERVER_BIN, else the release build when asked for and built, else the debug build."""
    if os.environ.get("SWITCHBOARD_SERVER_BIN"):
        return os.environ["SWITCHBOARD_SERVER_BIN"]
    if prefer_release and os.access(os.path.join(ROOT, ".build/release/switchboard"), os.X_OK):
        return os.path.join(ROOT, ".build/release/switchboard")
    return os.path.join(ROOT, ".build/debug/switchboard")


def conninfo(base, dbname):
    """The connection string `base` pointed at database `dbname` (URL or key=value form)."""
    if base.startswith(("postgres://", "postgresql://")):
        from urllib.parse import urlsplit, urlunsplit
        p = urlsplit(base)
        return urlunsplit((p.scheme, p.netloc, "/" + dbname, p.query, p.fragment))
    if re.search(r"\bdbname=\S+", base):
        return re.sub(r"\bdbname=\S+", "dbname=" + dbname, base)
    return base + " dbname=" + dbname


def sql(url, text, timeout=300):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url], input=text,
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()[-800:]}")
    return r.stdout.strip()


def copy_rows(url, table_cols, rows, timeout=1800):
    """`COPY table (cols) FROM STDIN` with the rows (tuples; None is NULL), streamed to psql."""
    p = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", f"COPY {table_cols} FROM STDIN"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    buf = []
    try:
        for r in rows:
            buf.append("\t".join("\\N" if v is None else str(v) for v in r))
            if len(buf) >= 50_000:
                p.stdin.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            p.stdin.write("\n".join(buf) + "\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    p.wait(timeout)
    err = p.stderr.read()
    if p.returncode != 0:
        raise RuntimeError(f"COPY {table_cols}: {err.strip()[-800:]}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(values, q):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(q * len(v))) - 1))]


class Server:
    """`switchboard serve` on a free loopback port against `url`, ready (/readyz) within 60 s, with the
    registration and login limits lifted for the benchmark's many users."""

    def __init__(self, url, work, extra=(), binary=None, log_level="warning"):
        self.port = free_port()
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/ws"
        self.log = open(os.path.join(work, "server.log"), "a")
        args = [binary or server_binary(), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--log-level", log_level, "--database-url", url, "--register-burst-per-address", "100000",
                "--login-burst-per-address", "100000", "--login-burst-per-phone", "100000",
                "--export-dir", os.path.join(work, "exports"), *extra]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; see {self.log.name}")
            try:
                if urllib.request.urlopen(self.http + "/readyz", timeout=1).status == 200:
                    return
            except Exception:
                pass
            time.sleep(0.1)
        raise RuntimeError("server not ready in 60 s")

    def metrics_text(self, timeout=10):
        return urllib.request.urlopen(self.http + "/metrics", timeout=timeout).read().decode()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Conn:
    """One protocol connection; replies matched by id (each with `clock()` at its arrival), events queued."""

    def __init__(self, ws, clock=time.perf_counter):
        self.ws, self.clock, self.rid, self.waiting, self.events = ws, clock, 0, {}, asyncio.Queue()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, url, clock=time.perf_counter):
        return cls(await websockets.connect(url, subprotocols=["switchboard.v1"], max_size=None), clock)

    async def _read(self):
        try:
            async for raw in self.ws:
                m = json.loads(raw)
                fut = self.waiting.pop(m.get("re"), None) if "re" in m else None
                if fut is not None and not fut.done():
                    fut.set_result((self.clock(), m))
                elif "re" not in m:
                    self.events.put_nowait(m)
        except websockets.ConnectionClosed:
            pass

    def send(self, op, **params):
        """A future of (arrival clock, reply)."""
        self.rid += 1
        fut = asyncio.get_running_loop().create_future()
        self.waiting[self.rid] = fut
        asyncio.ensure_future(self.ws.send(json.dumps({"id": self.rid, "op": op, **params})))
        return fut

    async def call(self, op, timeout=30, **params):
        _, m = await asyncio.wait_for(self.send(op, **params), timeout)
        if "ok" not in m:
            raise RuntimeError(f"{op}: {m}")
        return m["ok"]

    async def event(self, name, timeout):
        """The next event called `name` (others are dropped), within `timeout` seconds."""
        end = time.perf_counter() + timeout
        while True:
            m = await asyncio.wait_for(self.events.get(), max(0.01, end - time.perf_counter()))
            if m.get("ev") == name:
                return m

    async def close(self):
        await self.ws.close()
        self.reader.cancel()


def proc_kb(pid, key):
    """A kB field of /proc/PID/status (VmRSS, VmHWM...), 0 when absent."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def make_token():
    """A session token and the hex SHA-256 the server stores for it (sessions made in SQL)."""
    raw = os.urandom(32)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode(), hashlib.sha256(raw).hexdigest()


def request_buckets(text):
    """(labels, le seconds, cumulative count) of each switchboard_request_duration_seconds bucket in a /metrics text."""
    for line in text.splitlines():
        if not line.startswith("switchboard_request_duration_seconds_bucket{"):
            continue
        m = re.match(r"[^{]+\{([^}]*)\}\s+([0-9.eE+-]+)$", line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        le = float("inf") if labels.get("le") in ("+Inf", "Inf", None) else float(labels["le"])
        yield labels, le, float(m.group(2))


def histograms(server, ops):
    """{op: [(le seconds, cumulative count), ...]} of switchboard_request_duration_seconds."""
    out = {op: [] for op in ops}
    for labels, le, count in request_buckets(server.metrics_text()):
        if labels.get("op") in out:
            out[labels["op"]].append((le, count))
    return {op: sorted(v) for op, v in out.items()}


def server_quantiles(before, after):
    """p50/p99 (ms) of the requests between two histogram scrapes, linearly interpolated within buckets."""
    b = dict(before)
    delta = [(le, c - b.get(le, 0)) for le, c in after]
    total = delta[-1][1] if delta else 0
    if total <= 0:
        return {"count": 0}
    res = {"count": int(total)}
    for name, q in (("p50_ms", 0.5), ("p99_ms", 0.99)):
        target, prev_le, prev_c = q * total, 0.0, 0.0
        for le, c in delta:
            if c >= target:
                if le == float("inf"):
                    res[name] = f"> {prev_le * 1000:g}"
                else:
                    frac = (target - prev_c) / (c - prev_c) if c > prev_c else 1
                    res[name] = round((prev_le + frac * (le - prev_le)) * 1000, 2)
                res[name + "_bucket"] = "le " + ("+Inf" if le == float("inf") else f"{le * 1000:g} ms")
                break
            prev_le, prev_c = le, c
    return res


def summary_ms(values_ns):
    """{count, p50_ms, p99_ms, max_ms} of nanosecond durations."""
    if not values_ns:
        return {"count": 0}
    ms = [v / 1e6 for v in values_ns]
    return {"count": len(ms), "p50_ms": round(pct(ms, 0.5), 2), "p99_ms": round(pct(ms, 0.99), 2),
            "max_ms": round(max(ms), 2)}


def summary_row(name, s, width):
    """One line of a results table: a client-side summary (with max) or a server-side one (with its bucket)."""
    if not s or not s.get("count"):
        return f"{name:{width}} -"
    return f"{name:{width}} p50 {s.get('p50_ms')} / p99 {s.get('p99_ms')}" + (
        f" / max {s['max_ms']}" if "max_ms" in s else f" ({s.get('p99_ms_bucket', '')})") + f" ms  (n={s['count']})"


def prepare_run(server):
    """The checks every benchmark makes before it starts: the test database's URL is set, the server binary exists.
    Raises the file-descriptor limit to its hard limit and returns it."""
    if not os.environ.get("SWITCHBOARD_TEST_DATABASE_URL"):
        sys.exit("SWITCHBOARD_TEST_DATABASE_URL is not set (eval \"$(scripts/test-postgres.sh start DIR)\")")
    if not os.access(server, os.X_OK):
        sys.exit(f"no server binary at {server} (swift build --product switchboard, or SWITCHBOARD_SERVER_BIN)")
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def run_bench(name, main, a, table, passed):
    """Runs `main(a, say)` within `a.deadline` seconds (`say` prints a line stamped with the time since the start),
    prints `table(result)`, writes the result to `a.json` when given, and exits: 0 when `passed(result)`, 1 when not,
    2 when the set-up or the run failed."""
    t_run = time.perf_counter()

    def say(msg):
        print(f"[{time.perf_counter() - t_run:6.1f} s] {msg}", flush=True)

    try:
        res = asyncio.run(asyncio.wait_for(main(a, say), a.deadline))
    except Exception as e:  # noqa: BLE001 - set-up or run failures end the run with status 2
        print(f"{name}: set-up or run failed: {e!r}", file=sys.stderr)
        sys.exit(2)
    table(res)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    sys.exit(0 if passed(res) else 1)


def finish_run(stop, workers, server, keep, base_url, db, work):
    """The end of a benchmark run: stops the receiver processes and the server, drops the database and the work
    folder (or says where they are kept)."""
    stop.set()
    for p in workers:
        p.join(10)
        if p.is_alive():
            p.terminate()
            p.join(5)
    if server:
        server.stop()
    if not keep:
        try:
            sql(base_url, f"DROP DATABASE IF EXISTS {db};")
        except Exception as e:  # noqa: BLE001 - the run's result matters more than the clean-up
            print(f"could not drop {db}: {e}", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept database {db} and {work}", file=sys.stderr)


# --- receivers: worker processes holding many connections (spawned; every argument picklable) ---

def receiver_main(url, tokens, request, event, path, prefix, concurrency, ready_q, counter, stop, result_q):
    """Connects `tokens`' users (bounded concurrency), sends `authenticate` and `request` (an op and its params) on
    each, reports ("ready", n) or ("error", text), then timestamps every `event` frame whose field at `path` (keys)
    is a string `prefix` + `k` + ...; counts them in `counter`; at `stop` puts {receipts: [(k, ns)], errors}."""
    try:
        asyncio.run(_receiver(url, tokens, request, event, path, prefix, concurrency, ready_q, counter, stop, result_q))
    except Exception as e:  # noqa: BLE001 - reported to the main process
        ready_q.put(("error", repr(e)))


async def _receiver(url, tokens, request, event, path, prefix, concurrency, ready_q, counter, stop, result_q):
    receipts = []  # (k, monotonic ns)
    sockets = []
    errors = []
    sem = asyncio.Semaphore(concurrency)
    marker = f'"{event}"'
    quoted_prefix = '"' + prefix

    async def connect(token):
        async with sem:
            ws = await websockets.connect(url, subprotocols=["switchboard.v1"], max_size=None, open_timeout=30)
            await ws.send(json.dumps({"id": 1, "op": "authenticate", "token": token}))
            await ws.send(json.dumps({"id": 2, **request}))
            replies = 0
            while replies < 2:
                m = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if "re" in m:
                    replies += 1
                    if "ok" not in m:
                        raise RuntimeError(f"request {m.get('re')}: {m}")
            sockets.append(ws)

    async def listen(ws):
        try:
            async for raw in ws:
                t = time.monotonic_ns()
                if marker in raw and quoted_prefix in raw:
                    try:
                        value = json.loads(raw)
                        for key in path:
                            value = value[key]
                        if value.startswith(prefix):
                            receipts.append((int(value[len(prefix):].split(".")[0]), t))
                            with counter.get_lock():
                                counter.value += 1
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                        pass
        except websockets.ConnectionClosed:
            errors.append("connection closed")

    results = await asyncio.gather(*(connect(t) for t in tokens), return_exceptions=True)
    failed = [r for r in results if isinstance(r, Exception)]
    if failed:
        ready_q.put(("error", f"{len(failed)} connection(s) could not connect or send {request['op']}: {failed[0]!r}"))
        return
    listeners = [asyncio.ensure_future(listen(ws)) for ws in sockets]
    ready_q.put(("ready", len(sockets)))
    while not stop.is_set():
        await asyncio.sleep(0.2)
    result_q.put({"receipts": receipts, "errors": errors})
    for ws in sockets:
        await ws.close()
    for task in listeners:
        task.cancel()
