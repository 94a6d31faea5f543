# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser-test harness for the web app (Tests/web/test_*.py).

Installs nothing (scripts/deps.sh --test installs Debian's chromium, Playwright and axe-playwright-python; never
`playwright install`). A test file looks like this:

    import harness
    from harness import test, screenshot, axe_check

    @test
    def login_screen_loads(env):
        page = env.new_page("alice")            # a new browser context (one simulated user), camera/mic granted
        page.goto(env.url)                       # http://127.0.0.1:PORT/
        page.get_by_role("button", name="Log in").wait_for()
        screenshot(page, "login")
        axe_check(page, "login")
        env.expect_clean(page)                  # no console errors, page errors or CSP violations

    if __name__ == "__main__":
        harness.main(server_args=["--ring-timeout", "3"])

`harness.main()` first re-runs the script inside a loopback-only network namespace (`unshare --net`, then
`ip link set lo up`), so the server, Chromium and WebRTC see only 127.0.0.1 (PostgreSQL is reached through its
Unix socket, which works across namespaces). It then starts one server (`.build/debug/switchboard serve
--web-root web ...` on a free port, a fresh database in $SWITCHBOARD_TEST_DATABASE_URL) and one Chromium, runs
every @test function with an `Env`, closes the contexts each test opened, prints PASS/FAIL lines, the screenshot
folder and "N passed, N failed", and exits 1 when a test failed. Everything is bounded in time (per test and in
all).

Options (command line): `-k NAME` runs the tests whose name contains NAME. Environment: WEB_SCREENSHOTS (folder
for screenshots; default a new folder under /tmp), WEB_HEADED=1 (show the browser when a display exists),
WEB_NO_NETNS=1 (stay in the current network namespace), SWITCHBOARD_SERVER_BIN (the server executable),
WEB_TIME_LIMIT (seconds for the whole file).
"""

import datetime as dt
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.environ.get("SWITCHBOARD_SERVER_BIN", os.path.join(ROOT, ".build/debug/switchboard"))
WEB_ROOT = os.path.join(ROOT, "web")
FIXTURE_ROOT = os.path.join(ROOT, "Tests", "web", "fixture")
DATABASE_URL = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL", "")
CHROMIUM = os.environ.get("WEB_CHROMIUM", "/usr/bin/chromium")
WAIT = 15  # seconds a single expectation (Playwright's default timeout) may take
NETNS_MARK = "SWITCHBOARD_WEB_NETNS"

# The flags every browser gets: root needs --no-sandbox; fake camera and microphone with no prompt; WebRTC on
# loopback (../shared/PITFALLS.md).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--disable-features=WebRtcHideLocalIpsWithMdns",
    "--disable-dev-shm-usage",
    "--autoplay-policy=no-user-gesture-required",
]

_WORK = None
_SHOTS = None
_shot_count = 0


def work_dir():
    """A temporary folder for this run's logs (removed when every test passed)."""
    global _WORK
    if _WORK is None:
        _WORK = tempfile.mkdtemp(prefix="switchboard-web-test.")
        os.chmod(_WORK, 0o711)
    return _WORK


def screenshots_dir():
    """Where screenshots go: $WEB_SCREENSHOTS, or a new folder under /tmp (printed at the end)."""
    global _SHOTS
    if _SHOTS is None:
        _SHOTS = os.environ.get("WEB_SCREENSHOTS") or tempfile.mkdtemp(prefix="switchboard-web-shots.")
        os.makedirs(_SHOTS, exist_ok=True)
    return _SHOTS


def screenshot(page, name, full_page=True):
    """Saves a PNG of `page` as NN-name.png in the screenshot folder; returns its path."""
    global _shot_count
    _shot_count += 1
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    path = os.path.join(screenshots_dir(), f"{_shot_count:02d}-{safe}.png")
    page.screenshot(path=path, full_page=full_page)
    return path


def axe_check(page, name, context=None, ignore=()):
    """Runs axe-core on `page` (or `context`, a CSS selector) and raises AssertionError listing every serious or
    critical violation (rule ids in `ignore` are skipped); returns the list of all violations (any impact)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context=context)
    violations = results.response.get("violations", [])
    bad = [v for v in violations if v.get("impact") in ("serious", "critical") and v.get("id") not in ignore]
    if bad:
        lines = []
        for v in bad:
            targets = [" ".join(map(str, n.get("target", []))) for n in v.get("nodes", [])][:5]
            lines.append(f"{v['impact']} {v['id']}: {v.get('help')} at {targets}")
        raise AssertionError(f"axe ({name}): {len(bad)} serious or critical violation(s):\n  " + "\n  ".join(lines))
    return violations


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=WAIT, what="condition", interval=0.05):
    """Polls `predicate` until it is true; AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def clear_of_midnight(zone, seconds=30):
    """Waits, when the day in `zone` (a tzinfo) ends within `seconds`, until the next one has begun.

    For a check of "today" that the test computes from its clock and the server from its own (the calendar's
    highlighted day, a new account's active hours): a day ending between the two would fail it. The browser's clock
    plays no part there (the web app shows the server's `today`), so Playwright's clock API cannot pin it; this is a
    wait of at most `seconds`, and only in the last `seconds` of a day.
    """
    now = dt.datetime.now(zone)
    midnight = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(0, 0), zone)
    left = (midnight - now).total_seconds()
    if left < seconds:
        print(f"  waiting {left:.0f} s for midnight in {zone}")
        time.sleep(left + 1)


def http_get(url, headers=None, timeout=5):
    """(status, headers dict with lower-case names, body bytes) of one GET; no exceptions for HTTP errors."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def psql_path():
    """The psql executable (on PATH or under /usr/lib/postgresql)."""
    psql = shutil.which("psql")
    if psql is None and os.path.isdir("/usr/lib/postgresql"):
        for version in sorted(os.listdir("/usr/lib/postgresql"), reverse=True):
            candidate = os.path.join("/usr/lib/postgresql", version, "bin", "psql")
            if os.path.exists(candidate):
                psql = candidate
                break
    if psql is None:
        raise RuntimeError("psql not found")
    return psql


def run_sql(database_url, sql):
    """Runs SQL on a test database (psql, stopping at the first error)."""
    subprocess.run([psql_path(), database_url, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                   capture_output=True, timeout=30)


def make_database():
    """A fresh database in the test PostgreSQL (this file's own: other suites never see its users)."""
    name = f"web_{os.getpid()}_{random.randint(0, 1 << 30)}"
    subprocess.run([psql_path(), DATABASE_URL, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True,
                   timeout=30)
    parts = [p for p in DATABASE_URL.split() if not p.startswith("dbname=")]
    return " ".join(parts + [f"dbname={name}"])


class Server:
    """One `switchboard serve` on 127.0.0.1 and a free port, serving `web_root`; stopped by PID.

    `extra_args` are appended to the command line (e.g. ["--ring-timeout", "3"]); `database_url` defaults to a
    fresh database. `url` is the page's address (http://127.0.0.1:PORT/), `ws_url` the WebSocket's.
    """

    def __init__(self, web_root=WEB_ROOT, extra_args=(), database_url=None, name="server"):
        if not os.path.exists(SERVER):
            raise RuntimeError(f"{SERVER} does not exist: run `swift build` first")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        self.web_root = web_root
        self.database_url = database_url or make_database()
        self.log_path = os.path.join(work_dir(), f"{name}-{self.port}.log")
        self._log = open(self.log_path, "a")
        args = [SERVER, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--database-url", self.database_url,
                "--web-root", web_root, "--log-level", "notice", "--loops", "2", "--db-pool-size", "4",
                "--register-burst-per-address", "100000", "--login-burst-per-address", "100000",
                "--login-burst-per-phone", "100000", *extra_args]
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT)
        wait_for(lambda: self.status("/readyz") == 200, 30, "the server to be ready")

    def status(self, path):
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited with {self.proc.returncode}:\n{self.log_tail()}")
        try:
            return http_get(f"http://127.0.0.1:{self.port}{path}", timeout=2)[0]
        except OSError:
            return None

    def log_tail(self, chars=4000):
        try:
            with open(self.log_path) as f:
                return f.read()[-chars:]
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


# Records what a page reports that a test should not see: console errors, uncaught errors, CSP violations.
_RECORDER = """
(() => {
  const record = (kind, text) => { (window.__sbProblems = window.__sbProblems || []).push(kind + ': ' + text); };
  document.addEventListener('securitypolicyviolation', e =>
    record('csp', e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at '
      + e.sourceFile + ':' + e.lineNumber));
})();
"""


class Env:
    """What a test gets: the server, the browser, and new pages (one browser context per simulated user)."""

    def __init__(self, server, browser):
        self.server = server
        self.browser = browser
        self.url = server.url
        self._contexts = []

    def new_context(self, name="user", **options):
        """A new browser context (its own storage: a separate user) with camera and microphone granted.
        `options` go to Playwright's new_context (viewport, device_scale_factor, locale, ...)."""
        options.setdefault("viewport", {"width": 1024, "height": 768})
        context = self.browser.new_context(permissions=["camera", "microphone"], **options)
        context.set_default_timeout(WAIT * 1000)
        context.add_init_script(_RECORDER)
        context._sb_name = name
        self._contexts.append(context)
        return context

    def new_page(self, name="user", **options):
        """A page in a new context (see new_context) whose console errors, uncaught errors and CSP violations
        are recorded (`problems(page)`, `expect_clean(page)`); `page.sb_responses` lists (url, status) of every
        response it received, `page.sb_requests` (url, headers) of every request it made. Chromium reports a
        revalidated navigation (a 304 on the wire) as 200: only subresources show their 304s."""
        return self.watch(self.new_context(name, **options).new_page(), name)

    def watch(self, page, name="user"):
        """Starts recording a page's problems and responses (new_page does this already)."""
        page.sb_name = name
        page.sb_console = []
        page.sb_responses = []
        page.on("console", lambda m: page.sb_console.append(
            f"console.{m.type}: {m.text} ({m.location.get('url', '')})") if m.type == "error" else None)
        page.on("pageerror", lambda e: page.sb_console.append(f"uncaught: {e}"))
        page.sb_requests = []
        page.on("response", lambda r: page.sb_responses.append((r.url, r.status)))
        def on_request(r):
            try:
                page.sb_requests.append((r.url, r.all_headers()))
            except Exception:  # the page or request went away meanwhile
                page.sb_requests.append((r.url, dict(r.headers)))

        page.on("request", on_request)
        return page

    def problems(self, page):
        """Console errors, uncaught errors and CSP violations the page reported so far."""
        recorded = []
        try:
            recorded = page.evaluate("window.__sbProblems || []")
        except Exception as e:  # a closed or navigating page
            recorded = [f"(could not read the page's record: {e})"]
        return list(page.sb_console) + list(recorded)

    def expect_clean(self, page, allow=()):
        """AssertionError when the page reported a console error, an uncaught error or a CSP violation (entries
        containing any text in `allow` are ignored)."""
        found = [p for p in self.problems(page) if not any(a in p for a in allow)]
        if found:
            raise AssertionError(f"page '{page.sb_name}' reported:\n  " + "\n  ".join(found))

    def close_contexts(self):
        for context in self._contexts:
            try:
                context.close()
            except Exception:
                pass
        self._contexts = []


TESTS = []
_ON_TIMEOUT = []


def on_timeout(fn):
    """Registers `fn()` to run when the whole file goes over its time limit, before the server is stopped and the
    process exits (for what a test file started itself: processes, network namespaces)."""
    _ON_TIMEOUT.append(fn)
    return fn


def test(fn):
    """Registers a test function `fn(env)`."""
    TESTS.append(fn)
    return fn


def _in_netns():
    return os.environ.get(NETNS_MARK) == "1"


def enter_loopback_namespace():
    """Re-runs this script in a new network namespace with only `lo` (up); returns only when that is impossible
    or already done (then a note is printed if it was impossible)."""
    if _in_netns() or os.environ.get("WEB_NO_NETNS") == "1":
        return
    env = dict(os.environ, **{NETNS_MARK: "1"})
    ip = shutil.which("ip", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") or "ip"
    unshare = shutil.which("unshare")
    if unshare is None:
        print("note: unshare not found; running in the current network namespace", file=sys.stderr)
        return
    script = f'{ip} link set lo up && exec "$@"'
    for prefix in ([unshare, "--net"], [unshare, "--net", "--map-root-user"]):
        probe = subprocess.run(prefix + [ip, "link", "set", "lo", "up"], capture_output=True, timeout=10)
        if probe.returncode == 0:
            sys.stdout.flush()
            os.execvpe(prefix[0], prefix + ["sh", "-c", script, "sh", sys.executable, *sys.argv], env)
    print("note: no loopback-only network namespace (unshare --net failed); running in the current one",
          file=sys.stderr)


def main(server_args=(), web_root=None, time_limit=None, tests=None):
    """Runs the registered tests (see the module's docstring); returns only through sys.exit."""
    enter_loopback_namespace()
    if not DATABASE_URL:
        print("SWITCHBOARD_TEST_DATABASE_URL is not set (scripts/test.sh exports it)", file=sys.stderr)
        sys.exit(2)
    if not os.path.exists(CHROMIUM):
        print(f"{CHROMIUM} not found: scripts/deps.sh --test installs Debian's chromium", file=sys.stderr)
        sys.exit(2)
    from playwright.sync_api import sync_playwright

    tests = tests if tests is not None else TESTS
    only = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
    limit = float(time_limit or os.environ.get("WEB_TIME_LIMIT") or 300)
    started = time.monotonic()
    server = None

    def watchdog():
        # The whole file is over its time: stop the server by PID and leave (Chromium goes with its driver).
        print(f"FAIL: over the time limit of {limit:.0f} s", flush=True)
        for fn in _ON_TIMEOUT:
            try:
                fn()
            except Exception as e:  # the exit must still happen
                print(f"  on_timeout: {e}", flush=True)
        if server is not None and server.proc.poll() is None:
            server.proc.kill()
        os._exit(3)

    timer = threading.Timer(limit, watchdog)
    timer.daemon = True
    timer.start()
    passed = failed = 0
    name = os.path.basename(sys.argv[0])
    try:
        server = Server(web_root or WEB_ROOT, extra_args=server_args)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, headless=os.environ.get("WEB_HEADED") != "1", args=CHROMIUM_ARGS,
                timeout=60_000)
            env = Env(server, browser)
            for fn in tests:
                if only and only not in fn.__name__:
                    continue
                t0 = time.monotonic()
                try:
                    fn(env)
                    passed += 1
                    print(f"PASS {fn.__name__} ({time.monotonic() - t0:.1f} s)", flush=True)
                except BaseException as e:
                    failed += 1
                    print(f"FAIL {fn.__name__}: {e}", flush=True)
                    traceback.print_exc()
                    for context in env._contexts:
                        for i, page in enumerate(context.pages):
                            try:
                                print(f"  screenshot: {screenshot(page, f'FAIL-{fn.__name__}-{context._sb_name}-{i}')}")
                            except Exception:
                                pass
                    print("--- server log (tail)")
                    print(server.log_tail())
                    if isinstance(e, KeyboardInterrupt):
                        break
                finally:
                    env.close_contexts()
            browser.close()
    except Exception as e:
        failed += 1
        print(f"FAIL {name} setup: {e}", flush=True)
        traceback.print_exc()
        if server is not None:
            print(server.log_tail())
    finally:
        if server is not None:
            server.stop()
        timer.cancel()
    if _SHOTS is not None:
        print(f"screenshots: {_SHOTS}")
    where = "a loopback-only network namespace" if _in_netns() else "the current network namespace"
    print(f"{name}: {passed} passed, {failed} failed ({time.monotonic() - started:.1f} s, in {where})")
    if failed == 0 and _WORK is not None:
        shutil.rmtree(_WORK, ignore_errors=True)
    elif _WORK is not None:
        print(f"logs: {_WORK}")
    sys.exit(1 if failed else 0)
