#!/usr/bin/env python3
"""Browser tests of voice messages and calls (web/js/voice.js, web/js/calls.js) in a real Chromium.

Runs inside a loopback-only network namespace (re-executes itself under `unshare --net`), so WebRTC traffic
never leaves 127.0.0.1. Starts the debug server (.build/debug/switchboard serve) on a fresh database in the test
PostgreSQL ($SWITCHBOARD_TEST_DATABASE_URL) with a short ring timeout, and Chromium (Debian's /usr/bin/chromium
through Playwright for Python) with fake media devices: the fake microphone plays a beep, the fake camera a
moving pattern.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_media.py [-k NAME]

Every wait is bounded. Screenshots go to the folder printed at the start.
"""
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.environ.get("SWITCHBOARD_SERVER_BIN", os.path.join(ROOT, ".build/debug/switchboard"))
DATABASE_URL = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL", "")
RING_TIMEOUT_S = 8          # the server's --ring-timeout for these tests (the timeout test waits for it)
TIMEOUT_MS = 20_000         # Playwright's default wait

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--disable-features=WebRtcHideLocalIpsWithMdns",
    "--autoplay-policy=no-user-gesture-required",
]

# Keeps every RTCPeerConnection the page makes, so the test can read getStats() (an init script: CDP, not CSP).
RECORD_PEER_CONNECTIONS = """
(() => {
  const Original = window.RTCPeerConnection;
  if (!Original) return;
  window.__peerConnections = [];
  window.RTCPeerConnection = class extends Original {
    constructor(...args) { super(...args); window.__peerConnections.push(this); }
  };
})();
"""

INBOUND_STATS = """
async () => {
  const pcs = window.__peerConnections || [];
  const pc = pcs[pcs.length - 1];
  if (!pc) return null;
  const out = { audio: { bytes: 0, packets: 0 }, video: { bytes: 0, frames: 0, packets: 0 }, state: pc.connectionState };
  (await pc.getStats()).forEach((s) => {
    if (s.type !== 'inbound-rtp') return;
    const kind = s.kind || s.mediaType;
    if (kind === 'audio') { out.audio.bytes += s.bytesReceived || 0; out.audio.packets += s.packetsReceived || 0; }
    if (kind === 'video') { out.video.bytes += s.bytesReceived || 0; out.video.frames += s.framesDecoded || 0; out.video.packets += s.packetsReceived || 0; }
  });
  return out;
}
"""


def in_namespace():
    """Re-executes this script in a new network namespace with only loopback up (once)."""
    if os.environ.get("SWITCHBOARD_WEB_NETNS") == "1":
        return
    env = dict(os.environ, SWITCHBOARD_WEB_NETNS="1")
    script = 'ip link set lo up && exec "$0" "$@"'
    result = subprocess.run(["unshare", "--net", "sh", "-c", script, sys.executable] + sys.argv, env=env)
    sys.exit(result.returncode)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"port {port} not open after {seconds} s")


def make_database():
    name = f"webmedia_{os.getpid()}_{random.randint(0, 1 << 30)}"
    psql = shutil.which("psql") or next((os.path.join(d, "psql") for d in sorted(
        (os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")), reverse=True)
        if os.path.exists(os.path.join(d, "psql"))), None)
    subprocess.run([psql, DATABASE_URL, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True, timeout=30)
    parts = [p for p in DATABASE_URL.split() if not p.startswith("dbname=")]
    return " ".join(parts + [f"dbname={name}"])


class Env:
    """The server, the web files and one Chromium. Stopped by PID."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="web-media-")
        self.shots = os.path.join(self.tmp, "screenshots")
        os.makedirs(self.shots)
        print(f"screenshots: {self.shots}", flush=True)
        self.procs = []
        self.hub_port = free_port()
        log = open(os.path.join(self.tmp, "server.log"), "w")
        args = [SERVER, "serve", "--database-url", make_database(), "--host", "127.0.0.1",
                "--port", str(self.hub_port), "--ring-timeout", str(RING_TIMEOUT_S)]
        self.serves_web = "--web-root" in subprocess.run([SERVER, "serve", "--help"], capture_output=True, text=True).stdout
        if self.serves_web:
            args += ["--web-root", os.path.join(ROOT, "web")]
        hub = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(hub)
        wait_port(self.hub_port, hub)
        self.port = self.hub_port
        self.page_path = "/dev/media.html"
        if True:   # the test page (Tests/web/dev) is served by a small proxy in front of the hub
            self.port = free_port()
            proxy = subprocess.Popen([sys.executable, os.path.join(HERE, "devproxy.py"), str(self.port), str(self.hub_port),
                                      os.path.join(ROOT, "web"), HERE], stdout=subprocess.DEVNULL)
            self.procs.append(proxy)
            wait_port(self.port, proxy)
        self.base = f"http://127.0.0.1:{self.port}"
        from playwright.sync_api import sync_playwright
        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)

    def page(self):
        context = self.browser.new_context(viewport={"width": 900, "height": 800})
        context.grant_permissions(["microphone", "camera"], origin=self.base)
        context.add_init_script(RECORD_PEER_CONNECTIONS)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None)
        page.on("response", lambda r: page.errors.append(f"{r.status} {r.url}") if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
        page.goto(self.base + self.page_path)
        page.wait_for_function("() => window.dev !== undefined")
        return page

    def screenshot(self, page, name):
        path = os.path.join(self.shots, f"{name}.png")
        page.screenshot(path=path)
        return path

    def stop(self):
        try:
            self.browser.close()
            self.pw.stop()
        except Exception:
            pass
        for p in reversed(self.procs):
            p.terminate()
        for p in reversed(self.procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def axe_check(page, name):
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page)
    bad = [v for v in results.response["violations"] if v.get("impact") in ("serious", "critical")]
    for v in bad:
        print(f"  axe {name}: {v['id']} ({v['impact']}): {v['help']} {[n['target'] for n in v['nodes']][:4]}")
    assert not bad, f"{name}: {len(bad)} serious/critical accessibility violations"


def phone():
    return "+1555" + "".join(random.choice("0123456789") for _ in range(7))


def pair(env, names=("Ann", "Bob")):
    """Two users in two browser contexts, friends, each on a chat with the other. Returns (a, b, phone_b)."""
    a, b = env.page(), env.page()
    pa, pb = phone(), phone()
    ida = a.evaluate("([p, n]) => dev.start(p, n)", [pa, names[0]])
    idb = b.evaluate("([p, n]) => dev.start(p, n)", [pb, names[1]])
    req = a.evaluate("(id) => dev.app.client.request('friends.request', {user_id: id})", idb)
    b.evaluate("(rid) => dev.app.client.request('friends.accept', {request_id: rid})", req["request"]["request_id"])
    a.evaluate("(id) => dev.chatWith(id)", idb)
    b.evaluate("(id) => dev.chatWith(id)", ida)
    a.ids, b.ids = (ida, idb), (idb, ida)
    return a, b, pb


def overlay(page):
    return page.locator(".call-overlay")


def wait_phase(page, phase, timeout=TIMEOUT_MS):
    page.wait_for_selector(f".call-overlay[data-phase='{phase}']", timeout=timeout)


# MARK: tests

def test_voice_message(env):
    a, b, _ = pair(env)
    # hold to record: press, talk for 2 s, let go
    record = a.get_by_role("button", name="Record a voice message")
    record.hover()
    a.mouse.down()
    a.wait_for_selector(".voice-recorder.recording")
    a.wait_for_function("() => /0:01/.test(document.querySelector('.voice-timer').textContent)")
    env.screenshot(a, "voice-recording")
    time.sleep(1.2)
    a.mouse.up()
    a.wait_for_selector(".voice-status:has-text('Voice message sent')")
    player = b.locator("li[data-kind='voice'] .voice-player")
    player.wait_for()
    bars = player.locator(".voice-bar")
    assert bars.count() == 100, bars.count()
    levels = b.evaluate("() => Array.from(document.querySelectorAll('.voice-bar')).map(e => parseFloat(e.style.getPropertyValue('--level')))")
    assert max(levels) == 1.0 and min(levels) >= 0, levels
    duration_ms = b.evaluate("() => 0") or None
    time_text = player.locator(".voice-time").inner_text()
    assert time_text in ("0:02", "0:03"), time_text
    # play: the audio element's currentTime advances, and playback starts within 1 s of the tap
    started = b.evaluate("""async () => {
      const button = document.querySelector('.voice-play');
      const audio = document.querySelector('.voice-player audio');
      const t0 = performance.now();
      button.click();
      while (performance.now() - t0 < 5000) {
        if (audio.currentTime > 0 && !audio.paused) return performance.now() - t0;
        await new Promise((r) => setTimeout(r, 10));
      }
      return -1;
    }""")
    print(f"  voice playback started {started:.0f} ms after the tap")
    assert 0 <= started < 1000, started
    b.wait_for_function("() => document.querySelector('.voice-player audio').currentTime > 0.5")
    b.wait_for_selector(".voice-bar.played")
    env.screenshot(b, "voice-playing")
    # seek by clicking at three quarters of the waveform
    wave = player.locator(".voice-wave")
    box = wave.bounding_box()
    b.mouse.click(box["x"] + box["width"] * 0.75, box["y"] + box["height"] / 2)
    duration = b.evaluate("() => document.querySelector('.voice-player audio').duration")
    b.wait_for_function(f"() => Math.abs(document.querySelector('.voice-player audio').currentTime - {duration} * 0.75) < 0.4 || document.querySelector('.voice-player audio').ended")
    # keys on the waveform: Home goes back to the start
    b.evaluate("() => document.querySelector('.voice-play').click()")   # pause (or restart if it ended)
    wave.focus()
    b.keyboard.press("Home")
    b.wait_for_function("() => document.querySelector('.voice-player audio').currentTime < 0.3")
    assert wave.get_attribute("aria-valuenow") == "0"
    axe_check(b, "chat with a voice message")
    env.screenshot(b, "voice-message")

    # tap to toggle with the keyboard: Enter starts, the Send button sends
    record.focus()
    a.keyboard.press("Enter")
    a.wait_for_selector(".voice-recorder.recording")
    a.get_by_role("button", name="Send voice message").first.wait_for()
    time.sleep(1.2)
    a.locator(".voice-send").click()
    b.wait_for_function("() => document.querySelectorAll(\"li[data-kind='voice']\").length === 2")
    # Escape cancels, nothing is sent
    record.focus()
    a.keyboard.press("Enter")
    a.wait_for_selector(".voice-recorder.recording")
    time.sleep(0.8)
    a.keyboard.press("Escape")
    a.wait_for_selector(".voice-status:has-text('Recording cancelled')")
    # Space held on the focused button records while held
    record.focus()
    a.keyboard.down(" ")
    a.wait_for_selector(".voice-recorder.recording")
    time.sleep(1.5)
    a.keyboard.up(" ")
    b.wait_for_function("() => document.querySelectorAll(\"li[data-kind='voice']\").length === 3")
    # one player at a time: playing the second pauses the first
    b.evaluate("() => document.querySelectorAll('.voice-play')[0].click()")
    b.wait_for_function("() => !document.querySelectorAll('.voice-player audio')[0].paused")
    b.evaluate("() => document.querySelectorAll('.voice-play')[1].click()")
    b.wait_for_function("() => document.querySelectorAll('.voice-player audio')[0].paused && !document.querySelectorAll('.voice-player audio')[1].paused")
    # a refused microphone says so
    a.evaluate("() => { navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('no', 'NotAllowedError')); }")
    record.focus()
    a.keyboard.press("Enter")
    a.wait_for_selector(".voice-status.voice-error:has-text('microphone is blocked')")
    assert not a.errors + b.errors, a.errors + b.errors
    a.context.close(); b.context.close()


def test_video_call(env):
    a, b, phone_b = pair(env)
    # Bob has a second device open (another login): it rings too, then hears "answered on another device"
    b2 = env.page()
    b2.evaluate("([p, n]) => dev.login(p, n)", [phone_b, "Bob"])
    a.get_by_role("button", name="Video call").click()
    wait_phase(a, "ringing")
    a.wait_for_selector(".call-clock:has-text('left to answer')")
    a.wait_for_selector(".call-status:has-text('ringing on 2 devices')")
    for page in (b, b2):
        wait_phase(page, "incoming")
        page.get_by_role("button", name="Accept with video").wait_for()
    b.wait_for_selector(".call-status:has-text('Ann is calling you')")
    time.sleep(0.5)
    env.screenshot(a, "call-ringing")
    env.screenshot(b, "call-incoming")
    axe_check(a, "caller's ringing screen")
    axe_check(b, "incoming-call screen")
    b.get_by_role("button", name="Accept with video").click()
    b2.wait_for_selector(".call-status:has-text('answered on another device')")
    wait_phase(a, "active")
    wait_phase(b, "active")
    # media flows both ways: inbound audio and video bytes grow between two reads, frames are decoded
    first = {p: p.evaluate(INBOUND_STATS) for p in (a, b)}
    time.sleep(2.5)
    second = {p: p.evaluate(INBOUND_STATS) for p in (a, b)}
    for page, who in ((a, "caller"), (b, "callee")):
        s1, s2 = first[page], second[page]
        print(f"  {who}: audio bytes {s1['audio']['bytes']} -> {s2['audio']['bytes']}, video bytes "
              f"{s1['video']['bytes']} -> {s2['video']['bytes']}, frames decoded {s2['video']['frames']}")
        assert s2["audio"]["bytes"] > s1["audio"]["bytes"] > 0, (who, s1, s2)
        assert s2["video"]["bytes"] > s1["video"]["bytes"] > 0, (who, s1, s2)
        assert s2["video"]["frames"] > 0, (who, s2)
        page.wait_for_function("() => document.querySelector('.call-remote').videoWidth > 0")
    env.screenshot(a, "call-in-call")
    axe_check(a, "in-call screen")
    # mute and camera off act on the local tracks
    a.get_by_role("button", name="Mute microphone").click()
    assert a.get_by_role("button", name="Turn microphone on").get_attribute("aria-pressed") == "true"
    assert a.evaluate("() => window.__peerConnections.at(-1).getSenders().filter(s => s.track && s.track.kind === 'audio').every(s => !s.track.enabled)")
    a.get_by_role("button", name="Turn camera off").click()
    assert a.evaluate("() => window.__peerConnections.at(-1).getSenders().filter(s => s.track && s.track.kind === 'video').every(s => !s.track.enabled)")
    a.get_by_role("button", name="Turn camera on").click()
    a.get_by_role("button", name="Turn microphone on").click()
    # hang up: both see the end and the call's record in the chat
    a.get_by_role("button", name="Hang up").click()
    a.wait_for_selector(".call-status:has-text('The call has ended')")
    b.wait_for_selector(".call-status:has-text('The call has ended')")
    for page in (a, b):
        page.wait_for_selector("li[data-kind='system']:has-text('completed')")
    env.screenshot(b, "call-ended")
    b.get_by_role("button", name="Close").click()
    b.wait_for_selector(".call-overlay", state="detached")
    for page in (a, b, b2):
        assert not page.errors, page.errors
        page.context.close()


def test_declined_call(env):
    a, b, _ = pair(env, ("Cleo", "Dan"))
    a.get_by_role("button", name="Voice call").click()
    wait_phase(b, "incoming")
    b.get_by_role("button", name="Decline").click()
    a.wait_for_selector(".call-status:has-text('Dan declined the call')")
    b.wait_for_selector(".call-status:has-text('You declined the call')")
    for page in (a, b):
        page.wait_for_selector("li[data-kind='system']:has-text('declined')")
    a.context.close(); b.context.close()


def test_call_times_out(env):
    a, b, _ = pair(env, ("Eve", "Finn"))
    a.get_by_role("button", name="Voice call").click()
    wait_phase(b, "incoming")
    a.wait_for_selector(".call-status:has-text('Finn did not answer')", timeout=(RING_TIMEOUT_S + 10) * 1000)
    b.wait_for_selector(".call-status:has-text('You missed a call from Eve')", timeout=10_000)
    for page in (a, b):
        page.wait_for_selector("li[data-kind='system']:has-text('missed')")
    env.screenshot(a, "call-timeout")
    a.context.close(); b.context.close()


TESTS = [test_voice_message, test_video_call, test_declined_call, test_call_times_out]


def main():
    if not DATABASE_URL:
        print("SWITCHBOARD_TEST_DATABASE_URL is not set")
        sys.exit(2)
    in_namespace()
    only = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
    env = Env()
    passed = failed = 0
    try:
        for test in TESTS:
            if only and only not in test.__name__:
                continue
            started = time.monotonic()
            try:
                test(env)
                passed += 1
                print(f"PASS {test.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception:
                failed += 1
                traceback.print_exc()
                print(f"FAIL {test.__name__}", flush=True)
    finally:
        env.stop()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
