#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Pseudo-terminal tests of switchboard-cli against a real server.

Starts the debug server binary (.build/debug/switchboard serve) against the test PostgreSQL
($SWITCHBOARD_TEST_DATABASE_URL, exported by scripts/test.sh), drives switchboard-cli in pseudo-terminals
with pexpect, and checks what each screen shows and each exit code. Every wait is bounded.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/cli/test_cli.py [-k NAME]

Prints one line per test and a closing "N passed, N failed"; exits 1 when a test failed.
"""

import json
import math
import os
import random
import re
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import wave

import pexpect

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.environ.get("SWITCHBOARD_SERVER_BIN", os.path.join(ROOT, ".build/debug/switchboard"))
CLI = os.environ.get("SWITCHBOARD_CLI_BIN", os.path.join(ROOT, ".build/debug/switchboard-cli"))
DATABASE_URL = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL", "")
WAIT = 20  # seconds any single expectation may take

WORK = tempfile.mkdtemp(prefix="switchboard-cli-test.")
# Without a test database the server starts its embedded PostgreSQL in WORK; as root it runs it as an
# unprivileged user, who must be able to traverse this folder.
os.chmod(WORK, 0o711)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The debug server on a free port; stopped by PID."""

    def __init__(self, *extra, port=None):
        self.port = port or free_port()
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.log = open(os.path.join(WORK, f"server-{self.port}.log"), "w")
        args = [SERVER, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning",
                "--db-pool-size", "2", "--loops", "2", "--presence-grace", "1",
                "--register-burst-per-address", "1000", "--export-dir", os.path.join(WORK, "exports")]
        if DATABASE_URL:
            args += ["--database-url", DATABASE_URL]
        else:
            # The servers run one after the other: they share one embedded database (one initdb).
            # Phone verification off as with --database-url (the embedded default requires a code).
            args += ["--data-dir", os.path.join(WORK, "data"), "--phone-verification", "off"]
        args += extra  # last: they win over the above
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}; see {self.log.name}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("the server did not start listening within 60 s")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.log.close()


def env_for(server, color=False):
    env = dict(os.environ)
    env["SWITCHBOARD_URL"] = server.url
    # A crash prints its backtrace and exits at once (on a terminal the backtracer would otherwise wait for a key).
    env["SWIFT_BACKTRACE"] = "enable=yes,interactive=no"
    # These tests check the signalling screens with generated SDP and candidates (Tests/callmedia carries real
    # media): calls here run signalling-only, as `--no-media` does.
    env["SWITCHBOARD_NO_MEDIA"] = "1"
    env.pop("SWITCHBOARD_PASSWORD", None)
    env.pop("SWITCHBOARD_CONFIG_DIR", None)
    env.pop("SWITCHBOARD_PROFILE", None)
    if color:
        env.pop("NO_COLOR", None)
        env["TERM"] = "xterm"
    else:
        env["NO_COLOR"] = "1"
    return env


class User:
    """A person with their own config folder."""

    def __init__(self, server, name):
        self.server = server
        self.name = name
        self.phone = "+1555" + "".join(random.choice("0123456789") for _ in range(7))
        self.password = f"{name} has a long pass 42"
        self.config = os.path.join(WORK, f"{name}-{server.port}", "switchboard")

    def run(self, *args, stdin=None, env_extra=None, timeout=30):
        env = env_for(self.server)
        env.update(env_extra or {})
        p = subprocess.run([CLI, *args, "--config-dir", self.config], input=stdin, env=env,
                           capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def spawn(self, *args, color=False):
        child = pexpect.spawn(CLI, [*args, "--config-dir", self.config], env=env_for(self.server, color),
                              encoding="utf-8", timeout=WAIT, dimensions=(50, 200))
        child.logfile_read = open(os.path.join(WORK, f"{self.name}-{args[0]}-{time.time():.3f}.screen"), "w")
        SPAWNED.append(child)
        return child

    def register(self):
        rc, out, err = self.run("register", "--phone", self.phone, "--name", self.name, "--password-stdin",
                                stdin=self.password + "\n")
        check(rc == 0, f"register {self.name}: rc {rc}, {err}")
        return out


SPAWNED = []


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def screen(child):
    """Everything the child has shown so far."""
    child.logfile_read.flush()
    with open(child.logfile_read.name) as f:
        return f.read()


def wait_screen(child, pattern, timeout=WAIT):
    """Waits until the child's whole screen so far matches `pattern`, whatever was matched before (for lines
    whose order is not fixed, such as a relayed signal and the reply to one's own request)."""
    deadline = time.time() + timeout
    while not re.search(pattern, screen(child)):
        if time.time() > deadline:
            raise AssertionError(f"{pattern!r} not on the screen within {timeout} s")
        try:
            child.expect(pexpect.TIMEOUT, timeout=0.2)
        except pexpect.EOF:
            pass


def finish(child, code):
    """Waits for the child's end and checks its exit code."""
    child.expect(pexpect.EOF, timeout=WAIT)
    child.close()
    check(child.exitstatus == code, f"exit status {child.exitstatus}, expected {code}")


def befriend(a, b):
    rc, out, err = a.run("friends", "add", b.phone)
    check(rc == 0 and "sent to" in out, f"friends add: {rc} {out} {err}")
    rc, out, err = b.run("friends", "accept", a.phone)
    check(rc == 0 and "now friends" in out, f"friends accept: {rc} {out} {err}")


def tone_wav(path, seconds=1.0, rate=16000):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        frames = bytearray()
        for i in range(int(seconds * rate)):
            frames += struct.pack("<h", int(12000 * math.sin(2 * math.pi * 440 * i / rate)))
        w.writeframes(bytes(frames))


# ---------------------------------------------------------------------------------------------------- tests

def logged_codes(server):
    """Every verification code the server logged so far, in order (`--sms-gateway log`)."""
    with open(server.log.name) as f:
        return re.findall(r"code=(\d{6}) ", f.read())


def next_code(server, before):
    """The first code logged after `before` codes (the log line is written before `verify` gets its answer)."""
    codes = logged_codes(server)
    check(len(codes) > before, "no new code in the server log")
    return codes[before]


def test_verify_register_and_reset_password(server):
    """Issue 37: a server requiring phone verification, its codes in the log."""
    vera = User(server, "Vera")
    rc, out, err = vera.run("register", "--phone", vera.phone, "--name", "Vera", "--password-stdin",
                            stdin=vera.password + "\n")
    check(rc == 1 and "no valid code" in err and "switchboard-cli verify" in err, f"{rc} {err}")
    before = len(logged_codes(server))
    rc, out, err = vera.run("verify", "--phone", vera.phone)
    check(rc == 0 and "code requested" in out, f"{rc} {out} {err}")
    code = next_code(server, before)
    rc, out, err = vera.run("register", "--phone", vera.phone, "--name", "Vera", "--code", code, "--password-stdin",
                            stdin=vera.password + "\n")
    check(rc == 0 and "registered as Vera" in out, f"{rc} {out} {err}")
    before = len(logged_codes(server))
    rc, out, err = vera.run("verify", "--phone", vera.phone, "--reset", "--json")
    record = json.loads(out.strip().splitlines()[-1])
    check(rc == 0 and record["type"] == "code_requested" and record["purpose"] == "reset", f"{rc} {out} {err}")
    fresh = "Vera chose a new pass 43"
    rc, out, err = vera.run("reset-password", "--phone", vera.phone, "--code", next_code(server, before),
                            "--password-stdin", stdin=fresh + "\n")
    check(rc == 0 and "password reset" in out, f"{rc} {out} {err}")
    rc, out, err = vera.run("whoami")
    check(rc == 0 and "Vera" in out, f"the reset's session: {rc} {out} {err}")
    rc, out, err = vera.run("login", "--phone", vera.phone, "--password-stdin", "--profile", "old",
                            stdin=vera.password + "\n")
    check(rc == 1 and "wrong phone number or password" in err, f"the old password: {rc} {err}")


def test_accounts_and_token_file(server):
    ann = User(server, "Zoe")
    out = ann.register()
    check("registered as Zoe" in out, out)
    path = os.path.join(ann.config, "default.json")
    check(stat.S_IMODE(os.stat(path).st_mode) == 0o600, f"token file mode {oct(os.stat(path).st_mode)}")
    check(stat.S_IMODE(os.stat(ann.config).st_mode) == 0o700, "config folder mode")
    with open(path) as f:
        saved = json.load(f)
    check(saved["server"] == server.url and len(saved["token"]) > 20, saved)

    rc, out, _ = ann.run("whoami")
    check(rc == 0 and "Zoe" in out and ann.phone in out, out)
    rc, out, _ = ann.run("whoami", "--json")
    record = json.loads(out.strip().splitlines()[-1])
    check(record["type"] == "whoami" and record["display_name"] == "Zoe" and record["phone"] == ann.phone, record)

    # The password prompt does not echo; a second profile in the same folder keeps its own session.
    child = ann.spawn("login", "--phone", ann.phone, "--profile", "second")
    child.expect("Password: ")
    child.sendline(ann.password)
    child.expect("logged in as Zoe")
    finish(child, 0)
    # Looked for in all it showed once it has ended (not only in what came before the line expected).
    check(ann.password not in screen(child), "the password was echoed")
    check(os.path.exists(os.path.join(ann.config, "second.json")), "second profile file")
    rc, out, err = ann.run("login", "--phone", ann.phone, "--profile", "second", env_extra={"SWITCHBOARD_PASSWORD": ann.password})
    check(rc == 0 and "replaced the saved session" in err, f"second login: {rc} {err}")

    # A wrong password: a clear error and exit code 1; no profile is written.
    rc, out, err = ann.run("login", "--phone", ann.phone, "--password-stdin", "--profile", "third", stdin="wrong password 9\n")
    check(rc == 1 and "wrong phone number or password" in err, f"{rc} {err}")
    check(not os.path.exists(os.path.join(ann.config, "third.json")), "a failed login wrote a profile")

    # Not logged in: exit 3.
    rc, out, err = ann.run("whoami", "--profile", "nobody")
    check(rc == 3 and "not logged in" in err, f"{rc} {err}")

    # Logout revokes the session on the server and deletes the file; the old token no longer works.
    token = saved["token"]
    rc, out, err = ann.run("logout")
    check(rc == 0 and "logged out" in out, f"{rc} {out} {err}")
    check(not os.path.exists(path), "logout left the token file")
    os.makedirs(ann.config, exist_ok=True)
    with open(path, "w") as f:
        json.dump(dict(saved, token=token), f)
    rc, out, err = ann.run("whoami")
    check(rc == 3 and "no longer valid" in err, f"revoked token: {rc} {err}")

    # Usage errors: exit 2. Nobody listening: exit 4.
    rc, _, err = ann.run("friends", "add")
    check(rc == 2, f"missing argument: {rc} {err}")
    rc, _, err = ann.run("whoami", "--profile", "second", env_extra={"SWITCHBOARD_URL": f"ws://127.0.0.1:{free_port()}/ws"})
    check(rc == 4 and "cannot connect" in err, f"no server: {rc} {err}")


def test_friends_and_colour(server, ann, bob):
    rc, out, _ = ann.run("friends", "--json")
    friends = [json.loads(line) for line in out.splitlines()]
    check(rc == 0 and any(f["display_name"] == "Bob" and f["type"] == "friend" for f in friends), out)
    rc, out, _ = bob.run("friends")
    check(rc == 0 and re.search(r"^Ann  #\d+  (online|away|offline)$", out, re.M), out)
    # Already friends: the request answers with the friend at once; green on a terminal...
    child = ann.spawn("friends", "add", bob.phone, color=True)
    child.expect("Bob and you are now friends")
    check("\x1b[32m" in child.before, f"no colour on a terminal: {child.before!r}")
    finish(child, 0)
    # ...and plain with NO_COLOR.
    child = ann.spawn("friends", "add", bob.phone)
    child.expect("Bob and you are now friends")
    finish(child, 0)
    # All it showed once it has ended: a reset after the line would not be in `child.before`.
    check("\x1b[" not in screen(child), f"colour despite NO_COLOR: {screen(child)!r}")
    rc, out, err = ann.run("friends", "accept", "12345")
    check(rc == 2 and "no incoming friend request #12345" in err, f"{rc} {err}")


def test_call_answered_then_hangup(server, ann, bob):
    callee = bob.spawn("listen")
    callee.expect("listening as Bob")
    # listen shows the other events too: a message and a friend request.
    rc, _, err = ann.run("chat", "Bob", stdin="ping from ann\n/quit\n")
    check(rc == 0, f"chat: {rc} {err}")
    callee.expect(r"Ann: ping from ann")
    eve = User(server, "Eve")
    eve.register()
    rc, _, err = eve.run("friends", "add", bob.phone)
    check(rc == 0, f"friends add: {rc} {err}")
    callee.expect(r"friend request #\d+ from Eve")
    caller = ann.spawn("call", "Bob")
    caller.expect("calling Bob")
    caller.expect(r"ringing on 1 device")
    callee.expect("incoming voice call from Ann")
    callee.expect("answer with a")
    callee.sendline("a")
    callee.expect("answered: connected with Ann")
    caller.expect("accepted: connected")
    # Relayed signalling both ways: each side's generated ICE candidates reach the other. The caller's may
    # reach the callee before the reply to its accept, so the callee's screen is searched as a whole.
    caller.expect("signal received: ice_candidate candidate:")
    wait_screen(callee, r"signal received: ice_candidate candidate:1 .*\n(.*\n)*.*signal received: ice_candidate candidate:2 ")
    wait_screen(caller, r"signal received: ice_candidate candidate:2 ")
    time.sleep(1.2)
    caller.sendline("h")
    caller.expect(r"call ended: hangup, duration (\d+)\.(\d) s")
    seconds = int(caller.match.group(1))
    check(seconds >= 1, f"duration {caller.match.group(0)}")
    finish(caller, 0)
    callee.expect(r"call ended: hangup, duration \d+\.\d s")
    callee.sendline("/quit")
    finish(callee, 0)


def test_call_hangup_from_another_process_and_json(server, ann, bob):
    callee = bob.spawn("listen", "--auto-answer", "--json", "--presence", "away")
    callee.expect('"type":"listening"')
    # Presence from the snapshot: Bob's listening device is away.
    rc, out, err = ann.run("friends")
    check(rc == 0 and re.search(r"^Bob  #\d+  away$", out, re.M), f"friends while Bob is away: {rc} {out} {err}")
    caller = ann.spawn("call", "Bob", "--video")
    caller.expect("calling Bob")
    callee.expect(r'"media":"video","type":"call.ring"')
    caller.expect("accepted: connected \\(answer: audio\\+video\\)")
    callee.expect('"type":"call.signal"')
    # A separate process with the same saved session is the same device: it can end the call.
    rc, out, err = ann.run("hangup")
    check(rc == 0 and "hung up call" in out, f"hangup: {rc} {out} {err}")
    caller.expect(r"call ended: hangup, duration")
    finish(caller, 0)
    callee.expect(r'\{"call_id":"[^"]+","duration_ms":\d+,"reason":"hangup","type":"call.ended"\}')
    callee.sendintr()  # Ctrl-C stops listening cleanly
    finish(callee, 0)
    rc, out, err = ann.run("hangup")
    check(rc == 2 and "no current call" in err, f"hangup without a call: {rc} {err}")


def test_call_declined_and_cancelled(server, ann, bob):
    callee = bob.spawn("listen", "--auto-decline")
    callee.expect("listening as Bob")
    caller = ann.spawn("call", "Bob")
    caller.expect("call ended: declined")
    finish(caller, 5)
    callee.expect("call ended: declined")
    callee.sendline("/quit")
    finish(callee, 0)

    # Ctrl-C while ringing cancels the call; the callee's screen shows it.
    callee = bob.spawn("listen")
    callee.expect("listening as Bob")
    caller = ann.spawn("call", "Bob")
    callee.expect("incoming voice call from Ann")
    caller.expect("ringing on 1 device")
    caller.sendintr()
    caller.expect("call ended: cancelled")
    finish(caller, 5)
    callee.expect("call ended: cancelled")
    callee.sendline("/quit")
    finish(callee, 0)


def test_call_with_offer_file_and_unavailable(server, ann, bob):
    # The offer file's media sections travel to the callee, whose generated answer mirrors them.
    offer = os.path.join(WORK, "offer.sdp")
    with open(offer, "w", newline="") as f:
        f.write("v=0\r\no=- 42 2 IN IP4 127.0.0.1\r\ns=pty-test\r\nt=0 0\r\na=group:BUNDLE a v\r\n"
                "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
                "a=fingerprint:sha-256 " + ":".join(["AB"] * 32) + "\r\na=setup:actpass\r\na=mid:a\r\na=sendrecv\r\n"
                "a=rtpmap:111 opus/48000/2\r\n"
                "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
                "a=fingerprint:sha-256 " + ":".join(["AB"] * 32) + "\r\na=setup:actpass\r\na=mid:v\r\na=sendrecv\r\n"
                "a=rtpmap:96 VP8/90000\r\n")
    callee = bob.spawn("listen", "--auto-answer")
    callee.expect("listening as Bob")
    caller = ann.spawn("call", "Bob", "--offer", offer)
    caller.expect(r"accepted: connected \(answer: audio\+video\)")
    check("does not look like" not in screen(caller), "a well-formed offer file was warned about")
    caller.sendline("/hangup")
    caller.expect("call ended: hangup")
    finish(caller, 0)
    callee.expect("call ended: hangup")
    callee.sendline("/quit")
    finish(callee, 0)

    # A file that is not SDP is sent all the same, with a warning on stderr.
    junk = os.path.join(WORK, "junk.sdp")
    with open(junk, "w") as f:
        f.write("hello\n")
    # Nobody of Bob's is online now (once the server has seen his listen go: presence offline after the
    # 1 s grace): the call ends at once as unavailable (exit 5).
    deadline = time.time() + WAIT
    while True:
        rc, out, _ = ann.run("friends")
        if re.search(r"^Bob  #\d+  offline$", out, re.M):
            break
        check(time.time() < deadline, f"Bob still shown as present: {out}")
        time.sleep(0.3)
    caller = ann.spawn("call", "Bob", "--offer", junk)
    caller.expect("does not look like a WebRTC offer")
    caller.expect(r"call ended: unavailable \(no device online\)")
    finish(caller, 5)
    rc, _, err = ann.run("call", "Bob", "--offer", "/nonexistent.sdp")
    check(rc == 6 and "cannot read the offer file" in err, f"missing offer file: {rc} {err}")


def test_call_times_out(short_server):
    carol = User(short_server, "Carol")
    dave = User(short_server, "Dave")
    carol.register()
    dave.register()
    befriend(carol, dave)
    callee = dave.spawn("listen")
    callee.expect("listening as Dave")
    caller = carol.spawn("call", "dave")
    caller.expect("ringing on 1 device")
    callee.expect("incoming voice call from Carol")
    started = time.time()
    caller.expect(r"call ended: timeout \(no answer before the ring timeout\)", timeout=15)
    check(2.0 <= time.time() - started <= 12, f"timed out after {time.time() - started:.1f} s")
    finish(caller, 5)
    callee.expect("call ended: timeout")
    callee.sendline("/quit")
    finish(callee, 0)


def test_chat_history_more_live_and_voice(server, ann, bob):
    # Twelve messages from a script (stdin is a pipe): /quit waits for every acknowledgement.
    lines = "".join(f"line {i:02d}\n" for i in range(1, 13)) + "/quit\n"
    rc, out, err = ann.run("chat", "Bob", stdin=lines, timeout=60)
    check(rc == 0 and out.count("delivered") == 12, f"scripted chat: {rc} {out[-500:]} {err}")

    other = bob.spawn("chat", ann.phone)
    other.expect("chat with Ann")
    other.expect(r"Ann: line 03")
    other.expect(r"Ann: line 12")
    check("line 02" not in screen(other), "more than 10 messages of history")
    other.sendline("/more")
    other.expect(r"\d+ older message\(s\)")
    other.expect(r"Ann: line 01")
    other.expect(r"Ann: line 02")
    other.expect("beginning of the conversation")

    me = ann.spawn("chat", "bob")
    me.expect("chat with Bob")
    me.sendline("hello from ann")
    me.expect(r"delivered \(#\d+\)")
    other.expect(r"Ann: hello from ann")
    other.sendline("hi ann")
    other.expect("delivered")
    me.expect(r"Bob: hi ann")

    wav = os.path.join(WORK, "tone.wav")
    tone_wav(wav, seconds=1.0)
    me.sendline(f"/voice {wav}")
    me.expect(r"voice message 1\.\d s .* delivered \(#\d+\)")
    other.expect(r"Ann: voice message 1\.\d s")
    me.sendline("/voice /nonexistent.wav")
    me.expect("cannot read /nonexistent.wav")
    me.sendline("/quit")
    finish(me, 0)
    other.sendline("/quit")
    finish(other, 0)

    rc, _, err = ann.run("chat", "Nobody")
    check(rc == 2 and "no friend or group" in err, f"unknown chat target: {rc} {err}")


def test_account_export_and_delete(server):
    eve, fay = User(server, "Eve"), User(server, "Fay")
    eve.register()
    fay.register()
    befriend(eve, fay)
    rc, out, err = eve.run("chat", "Fay", stdin="for the archive\n/quit\n", timeout=60)
    check(rc == 0 and "delivered" in out, f"chat: {rc} {out} {err}")

    # Export: waits for the archive, downloads it; its JSON has the profile and the message.
    target = os.path.join(WORK, "eve-export.tar.gz")
    rc, out, err = eve.run("account", "export", "--to", target, timeout=120)
    check(rc == 0 and "saved your data" in out and os.path.getsize(target) > 0, f"export: {rc} {out} {err}")
    import tarfile
    with tarfile.open(target, "r:gz") as archive:
        names = archive.getnames()
        profile = json.load(archive.extractfile(next(n for n in names if n.endswith("/profile.json"))))
        conversations = json.load(archive.extractfile(next(n for n in names if n.endswith("/conversations.json"))))
    check(profile["phone"] == eve.phone and profile["display_name"] == "Eve", profile)
    check(any(m.get("text") == "for the archive" for c in conversations for m in c["messages"]), conversations)

    # Delete: the prompt warns and does not echo; a wrong password is refused (exit 1) and changes nothing.
    child = eve.spawn("account", "delete")
    child.expect("for good")
    child.expect("Password: ")
    child.sendline("not my password 1")
    child.expect("wrong")
    finish(child, 1)
    rc, out, _ = eve.run("whoami")
    check(rc == 0 and "Eve" in out, f"after a wrong password: {rc} {out}")
    child = eve.spawn("account", "delete")
    child.expect("Password: ")
    child.sendline(eve.password)
    child.expect("account deleted")
    finish(child, 0)
    check(eve.password not in screen(child), "the password was echoed")
    check(not os.path.exists(os.path.join(eve.config, "default.json")), "the profile file stayed")
    rc, out, err = eve.run("login", "--phone", eve.phone, "--password-stdin", stdin=eve.password + "\n")
    check(rc == 1, f"login after deletion: {rc} {err}")
    # The number registers again, as a new account.
    rc, out, err = eve.run("register", "--phone", eve.phone, "--name", "Eve Again", "--password-stdin", stdin=eve.password + "\n")
    check(rc == 0 and "registered as Eve Again" in out, f"re-register: {rc} {out} {err}")


def test_communities_events_and_calendar(server, ann, bob):
    """An administrator (made with `switchboard admin grant`) creates two communities and publishes an event; Bob
    lists the communities (not joined), joins one by name, lists its events, sees the next publication live in
    `listen` and as an unread count in `communities`, joins the event, finds it starred and listed in `calendar
    month`, and `communities read` clears the count; a non-administrator cannot publish."""
    ada = User(server, "Ada")
    ada.register()
    where = ["--database-url", DATABASE_URL] if DATABASE_URL else ["--data-dir", os.path.join(WORK, "data")]
    granted = subprocess.run([SERVER, "admin", "grant", ada.phone, *where], capture_output=True, text=True, timeout=120)
    check(granted.returncode == 0, f"admin grant: {granted.stdout} {granted.stderr}")
    tag = "".join(random.choice("abcdefghij") for _ in range(6))
    garden, chess = f"Garden Club {tag}", f"Chess {tag}"
    rc, out, err = ada.run("communities", "create", garden, "--description", "Growing things together", "--category", "hobby")
    check(rc == 0 and f"created {garden}" in out, f"communities create: {rc} {out} {err}")
    rc, out, err = ada.run("communities", "create", chess)
    check(rc == 0, f"communities create: {rc} {out} {err}")
    # An event starting in an hour (UTC), shown in its month's calendar.
    start = time.time() + 3600
    day = time.strftime("%Y-%m-%d", time.gmtime(start))
    rc, out, err = ada.run("events", "create", garden, "--title", "Spring planting", "--starts",
                           time.strftime("%Y-%m-%d %H:%M", time.gmtime(start)), "--duration", "90", "--tz", "UTC",
                           "--place", "Town garden", "--capacity", "10")
    check(rc == 0 and "published #" in out and "Spring planting" in out, f"events create: {rc} {out} {err}")
    rc, out, err = bob.run("events", "create", garden, "--title", "Mine", "--starts", "2030-01-01 10:00",
                           "--duration", "60", "--tz", "UTC")
    check(rc == 1 and "forbidden" in err, f"events create by a non-administrator: {rc} {out} {err}")

    rc, out, err = bob.run("communities", "--all")
    check(rc == 0 and re.search(rf"^#\d+ {garden} \[hobby\]  0 members$", out, re.M)
          and re.search(rf"^#\d+ {chess}  0 members$", out, re.M), f"communities: {rc} {out} {err}")
    rc, out, err = bob.run("communities", "join", garden.lower())
    check(rc == 0 and f"joined {garden}" in out, f"communities join: {rc} {out} {err}")
    rc, out, err = bob.run("events", "list", garden, "--json")
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    check(rc == 0 and [e["title"] for e in events] == ["Spring planting"] and events[0]["status"] == "upcoming",
          f"events list: {rc} {out} {err}")
    event_id = str(events[0]["event_id"])

    # A publication reaches Bob's listening terminal at once, and is unread afterwards.
    listener = bob.spawn("listen")
    listener.expect("listening as Bob")
    rc, out, err = ada.run("events", "create", garden, "--title", "Seed swap", "--starts", "2030-05-01 10:00",
                           "--duration", "60", "--tz", "Europe/Paris")
    check(rc == 0, f"second events create: {rc} {out} {err}")
    listener.expect(r"● community #\d+: #\d+ new event: Seed swap \(event #\d+\) by Ada")
    listener.sendintr()
    finish(listener, 0)
    rc, out, err = bob.run("communities")
    check(rc == 0 and re.search(rf"^#\d+ {garden} \[hobby\]  1 member  joined  ● 1 unread$", out, re.M)
          and "1 unread notification in all" in out, f"communities with an unread notification: {rc} {out} {err}")
    rc, out, err = bob.run("communities", "notifications", garden)
    check(rc == 0 and re.search(r"^● #\d+ new event: Seed swap", out, re.M), f"notifications: {rc} {out} {err}")

    rc, out, err = bob.run("events", "join", event_id)
    check(rc == 0 and "going to #" in out and "1/10 going" in out, f"events join: {rc} {out} {err}")
    rc, out, err = bob.run("events", "join", event_id)
    check(rc == 1 and "already_joined" in err, f"joining twice: {rc} {out} {err}")
    child = bob.spawn("calendar", "month", day, "--tz", "UTC")
    finish(child, 0)
    shown = screen(child)
    d = int(day[8:])
    check(re.search(rf"(\[{d:2d}\]|\b{d})\*", shown) and "Spring planting" in shown
          and re.search(r" Mo   Tu   We   Th   Fr   Sa   Su| Su   Mo   Tu   We   Th   Fr   Sa", shown)
          and "next: calendar month" in shown, f"calendar month: {shown}")
    rc, out, err = bob.run("calendar", "month", day, "--tz", "UTC", "--json")
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    cal = next(r for r in records if r["type"] == "calendar")
    check(rc == 0 and any(int(event_id) in x["event_ids"] for x in cal["days"] if x["date"] == day),
          f"calendar --json: {rc} {out} {err}")

    rc, out, err = bob.run("communities", "read", garden)
    check(rc == 0 and "0 unread there, 0 in all" in out, f"communities read: {rc} {out} {err}")
    rc, out, err = bob.run("communities")
    check(rc == 0 and "nothing unread" in out, f"communities after read: {rc} {out} {err}")


# ---------------------------------------------------------------------------------------------------- runner

def test_report_and_moderation(server, ann, bob):
    """Bob spams Ann; Ann reports the message and Bob; Ann is refused the admin commands; Mod, made an
    administrator with `switchboard admin grant` (the running server's database), sees the reports, removes
    the message, suspends Bob (his commands then fail), reinstates him and reads the audit log."""
    rc, out, err = bob.run("chat", "Ann", stdin="buy cheap pills\n/quit\n", timeout=60)
    check(rc == 0 and "delivered" in out, f"scripted chat: {rc} {out[-300:]} {err}")
    seq = re.findall(r"delivered \(#(\d+)\)", out)[-1]
    rc, out, err = ann.run("report", "message", "Bob", seq, "--reason", "spam", "--text", "ads")
    check(rc == 0 and re.search(r"report #\d+ sent", out), f"report message: {rc} {out} {err}")
    rc, out, err = ann.run("report", "user", "Bob", "--reason", "harassment")
    check(rc == 0 and "sent" in out, f"report user: {rc} {out} {err}")
    rc, out, err = ann.run("admin", "reports")
    check(rc == 1 and "administrators only" in err, f"admin reports by a non-administrator: {rc} {out} {err}")

    mod = User(server, "Mod")
    mod.register()
    where = ["--database-url", DATABASE_URL] if DATABASE_URL else ["--data-dir", os.path.join(WORK, "data")]
    granted = subprocess.run([SERVER, "admin", "grant", mod.phone, *where], capture_output=True, text=True, timeout=120)
    check(granted.returncode == 0 and "is an administrator" in granted.stdout, f"admin grant: {granted.stdout} {granted.stderr}")
    listed = subprocess.run([SERVER, "admin", "list", *where], capture_output=True, text=True, timeout=120)
    check(mod.phone in listed.stdout, f"admin list: {listed.stdout} {listed.stderr}")

    rc, out, err = mod.run("admin", "reports")
    check(rc == 0 and "buy cheap pills" in out and "harassment" in out, f"admin reports: {rc} {out} {err}")
    rc, out, err = mod.run("admin", "reports", "--json")
    reports = [json.loads(line) for line in out.splitlines() if line.strip()]
    message_report = next(r for r in reports if r.get("target_kind") == "message")
    bob_id = str(message_report["target_user_id"])
    rc, out, err = mod.run("admin", "remove", str(message_report["target_id"]), "--reason", "spam",
                           "--report", str(message_report["report_id"]))
    check(rc == 0 and "removed" in out, f"admin remove: {rc} {out} {err}")
    rc, out, err = mod.run("admin", "suspend", bob_id, "--reason", "spam")
    check(rc == 0 and "suspended" in out, f"admin suspend: {rc} {out} {err}")
    rc, out, err = bob.run("friends")
    check(rc != 0 and "suspended" in err, f"a suspended user's command: {rc} {out} {err}")
    rc, out, err = mod.run("admin", "reinstate", bob_id)
    check(rc == 0 and "reinstated" in out, f"admin reinstate: {rc} {out} {err}")
    rc, out, err = bob.run("friends")
    check(rc == 0, f"a reinstated user's command: {rc} {out} {err}")
    rc, out, err = mod.run("admin", "audit")
    check(rc == 0 and f"reinstate user {bob_id}" in out and f"suspend user {bob_id}" in out and "grant user" in out
          and "remove message" in out, f"admin audit: {rc} {out} {err}")


def test_hours_and_profile_settings(server, ann, bob):
    """`profile set` changes the time zone and locale (refusing an unknown zone); `hours` shows the series and one
    day's hours, for oneself and a friend; a stranger is refused."""
    rc, out, err = ann.run("profile", "set", "--time-zone", "Asia/Tokyo", "--locale", "ja-JP")
    check(rc == 0 and "time zone Asia/Tokyo, locale ja-JP" in out, f"profile set: {rc} {out} {err}")
    rc, out, err = ann.run("profile", "set", "--time-zone", "Mars/Base")
    check(rc == 1 and "unknown time zone" in err, f"unknown zone: {rc} {out} {err}")
    rc, out, err = ann.run("profile", "set")
    check(rc == 2, f"nothing to set: {rc} {out} {err}")
    rc, out, _ = ann.run("whoami", "--json")
    ann_id = json.loads(out.splitlines()[0])["user_id"]
    rc, out, err = bob.run("hours", "--user", str(ann_id), "--json")
    series = json.loads(out.splitlines()[0])
    check(rc == 0 and series["type"] == "active_hours" and series["time_zone"] == "Asia/Tokyo", f"{rc} {out} {err}")
    check(series["days"] and series["days"][-1]["date"] == series["today"] and series["days"][-1]["seconds"] >= 0, out)
    rc, out, err = bob.run("hours", series["today"], "--user", str(ann_id), "--json")
    day = json.loads(out.splitlines()[0])
    check(rc == 0 and day["type"] == "active_day" and len(day["hours"]) in (23, 24, 25), f"{rc} {out} {err}")
    child = ann.spawn("hours")
    child.expect(r"active hours of user \d+, last \d+ days \(Asia/Tokyo\)")
    finish(child, 0)
    rc, out, err = ann.run("hours", "2026-02-30")
    check(rc == 1 and "YYYY-MM-DD" in err, f"bad date: {rc} {out} {err}")
    cy = User(server, "Cy")
    cy.register()
    rc, out, err = cy.run("hours", "--user", str(ann_id))
    check(rc == 1 and ("not_found" in err or "no such user" in err), f"stranger: {rc} {out} {err}")


# ---------------------------------------------------------------------------------------------------- social

def social_users(server):
    """Three users with handles (random, so that reruns against the same database do not collide)."""
    tag = "".join(random.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(5))
    users = []
    for name in ("Sam", "Tia", "Uma"):
        u = User(server, name)
        u.register()
        u.handle = f"{name.lower()}_{tag}"
        users.append(u)
    return users


def post_id(out):
    """The post id of a `post.created`/`reply.created` JSON line."""
    return json.loads(out.splitlines()[0])["post"]["post_id"]


def test_social_handles_posts_and_thread(server, sam, tia, uma):
    """No handle: posting refused (`handle_required`); a handle taken in another case refused (`handle_taken`); a post
    with a mention and a tag, a reply, the user page, the thread and the profile's stats."""
    rc, out, err = sam.run("post", "too early")
    check(rc == 1 and "handle_required" in err, f"post without a handle: {rc} {out} {err}")
    for u in (sam, tia, uma):
        rc, out, err = u.run("handle", "@" + u.handle)
        check(rc == 0 and f"your handle is @{u.handle}" in out, f"handle {u.handle}: {rc} {out} {err}")
    rc, out, err = tia.run("handle", sam.handle.upper())
    check(rc == 1 and "handle_taken" in err, f"taken handle: {rc} {out} {err}")
    rc, out, err = tia.run("handle", "admin")
    check(rc == 1 and "bad_request" in err, f"reserved handle: {rc} {out} {err}")
    vic = User(server, "Vic")
    rc, out, err = vic.run("register", "--phone", vic.phone, "--name", "Vic", "--password-stdin", "--handle", sam.handle,
                           stdin=vic.password + "\n")
    check(rc == 1 and "handle_taken" in err, f"register with a taken handle: {rc} {out} {err}")
    rc, out, err = vic.run("register", "--phone", vic.phone, "--name", "Vic", "--password-stdin", "--handle",
                           "@vic" + sam.handle[3:], stdin=vic.password + "\n")
    check(rc == 0, f"register with a handle: {rc} {out} {err}")
    rc, out, err = vic.run("profile")
    check(rc == 0 and f"@vic{sam.handle[3:]} (Vic)" in out, f"own profile: {rc} {out} {err}")
    rc, out, err = sam.run("post", f"Hello #world from @{tia.handle}", "--json")
    check(rc == 0, f"post: {rc} {out} {err}")
    post = json.loads(out.splitlines()[0])
    check(post["type"] == "post.created" and post["post"]["hashtags"] == ["world"], out)
    check([m["handle"] for m in post["post"]["mentions"]] == [tia.handle], out)
    pid = post["post"]["post_id"]
    rc, out, err = tia.run("reply", str(pid), "Hello back")
    check(rc == 0 and "replied" in out and f"@{tia.handle}: Hello back" in out, f"reply: {rc} {out} {err}")
    rc, out, err = uma.run("timeline", "@" + sam.handle)
    check(rc == 0 and f"#{pid} @{sam.handle}: Hello #world" in out and "1 post" in out, f"user page: {rc} {out} {err}")
    rc, out, err = uma.run("thread", f"#{pid}")
    lines = out.splitlines()
    check(rc == 0 and lines[0].startswith(f"▶ #{pid}") and "Hello back" in lines[1] and "↩ 1" in lines[0], f"thread: {rc} {out} {err}")
    rc, out, err = tia.run("timeline", "mentions")
    check(rc == 0 and f"#{pid} " in out, f"mentions: {rc} {out} {err}")
    rc, out, err = uma.run("timeline", "#world", "--json")
    check(rc == 0 and any(json.loads(l).get("post", {}).get("post_id") == pid for l in out.splitlines()), f"#world: {rc} {out} {err}")
    check(json.loads(out.splitlines()[-1])["type"] == "timeline.page", f"#world page record: {out}")
    rc, out, err = uma.run("profile", "@" + sam.handle)
    check(rc == 0 and f"@{sam.handle} (Sam)" in out and "1 post, 0 following, 0 followers" in out, f"profile: {rc} {out} {err}")


def test_social_timeline_follow_live(server, sam, tia, uma):
    """`timeline --follow` on Tia's terminal shows Sam's new post (made by another process) live, then its deletion;
    Ctrl-C ends it with exit 0."""
    rc, out, err = tia.run("follow", "@" + sam.handle)
    check(rc == 0 and f"following @{sam.handle}" in out, f"follow: {rc} {out} {err}")
    rc, out, err = tia.run("following")
    check(rc == 0 and f"@{sam.handle} (Sam)" in out, f"following: {rc} {out} {err}")
    child = tia.spawn("timeline", "--follow")
    child.expect("following home live; Ctrl-C to stop")
    rc, out, err = sam.run("post", "live from the hub", "--json")
    check(rc == 0, f"post: {rc} {out} {err}")
    pid = post_id(out)
    child.expect(rf"#{pid} @{sam.handle}: live from the hub")
    rc, out, err = sam.run("delete-post", str(pid))
    check(rc == 0 and f"deleted post #{pid}" in out, f"delete-post: {rc} {out} {err}")
    child.expect(rf"post #{pid} was deleted")
    child.sendintr()
    finish(child, 0)
    # A user page and the mentions, live, with --json.
    page = uma.spawn("timeline", "@" + sam.handle, "--follow", "--json")
    page.expect('"type":"live.subscribed"')
    mentions = uma.spawn("timeline", "mentions", "--follow")
    mentions.expect("following mentions live")
    rc, out, err = sam.run("post", f"psst @{uma.handle}", "--json")
    check(rc == 0, f"post with a mention: {rc} {out} {err}")
    pid = post_id(out)
    page.expect(rf'"post_id":{pid}')
    mentions.expect(rf"#{pid} @{sam.handle}: psst @{uma.handle}")
    for c in (page, mentions):
        c.sendintr()
        finish(c, 0)
    rc, out, err = tia.run("timeline")
    check(rc == 0 and "live from the hub" not in out and "Hello #world" in out, f"home after delete: {rc} {out} {err}")


def test_social_protected_follow_and_likes(server, sam, tia, uma):
    """A protected account: a follow is a request until approved (`requests approve`); likes count exactly across
    users with --undo; notifications group the likes; a block hides the blocker's page (not_found)."""
    rc, out, err = uma.run("profile", "set", "--protected", "--bio", "quiet one")
    check(rc == 0 and "protected" in out and "quiet one" in out, f"profile set: {rc} {out} {err}")
    rc, out, err = sam.run("follow", "@" + uma.handle)
    check(rc == 0 and "requested to follow" in out, f"follow protected: {rc} {out} {err}")
    rc, out, err = sam.run("timeline", "@" + uma.handle)
    check(rc == 1 and "forbidden" in err, f"protected page before approval: {rc} {out} {err}")
    rc, out, err = uma.run("requests")
    check(rc == 0 and f"@{sam.handle} (Sam)" in out, f"requests: {rc} {out} {err}")
    rc, out, err = uma.run("requests", "approve", "@" + sam.handle)
    check(rc == 0 and "now follows you" in out, f"approve: {rc} {out} {err}")
    rc, out, err = uma.run("followers", "--json")
    check(rc == 0 and json.loads(out.splitlines()[0])["handle"] == sam.handle, f"followers: {rc} {out} {err}")
    rc, out, err = sam.run("timeline", "@" + uma.handle)
    check(rc == 0, f"protected page after approval: {rc} {out} {err}")

    rc, out, err = sam.run("post", "like me", "--json")
    pid = post_id(out)
    rc, out, err = tia.run("like", str(pid))
    check(rc == 0 and f"liked post #{pid}  ♥ 1" in out, f"like 1: {rc} {out} {err}")
    rc, out, err = uma.run("like", str(pid), "--json")
    r = json.loads(out.splitlines()[0])
    check(rc == 0 and r["like_count"] == 2 and r["liked"] is True, f"like 2: {rc} {out} {err}")
    rc, out, err = uma.run("like", str(pid))
    check(rc == 0 and "♥ 2" in out, f"like again (idempotent): {rc} {out} {err}")
    rc, out, err = tia.run("like", str(pid), "--undo")
    check(rc == 0 and "♥ 1" in out, f"unlike: {rc} {out} {err}")
    rc, out, err = tia.run("repost", str(pid))
    check(rc == 0 and "reposted" in out, f"repost: {rc} {out} {err}")
    rc, out, err = sam.run("notifications")
    check(rc == 0 and "liked your post" in out and "reposted your post" in out and "unread" in out, f"notifications: {rc} {out} {err}")
    rc, out, err = sam.run("notifications", "--read")
    check(rc == 0 and "marked read" in out, f"read: {rc} {out} {err}")
    rc, out, err = sam.run("block", "@" + tia.handle)
    check(rc == 0 and "blocked" in out, f"block: {rc} {out} {err}")
    rc, out, err = tia.run("timeline", "@" + sam.handle)
    check(rc == 1 and "not_found" in err, f"blocked user's view: {rc} {out} {err}")
    rc, out, err = sam.run("block")
    check(rc == 0 and f"@{tia.handle} (Tia)" in out, f"blocked list: {rc} {out} {err}")
    rc, out, err = sam.run("unblock", "@" + tia.handle)
    check(rc == 0 and "unblocked" in out, f"unblock: {rc} {out} {err}")


def test_social_follow_survives_a_restart(server):
    """`timeline --follow` keeps following across a server restart: it reconnects, subscribes again from the newest
    seq it showed, and shows a post made after the restart."""
    tag = "".join(random.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(5))
    ann, bob = User(server, "Ann"), User(server, "Bob")
    for u, h in ((ann, "ann_" + tag), (bob, "bob_" + tag)):
        rc, out, err = u.run("register", "--phone", u.phone, "--name", u.name, "--password-stdin", "--handle", h,
                             stdin=u.password + "\n")
        check(rc == 0, f"register {h}: {rc} {out} {err}")
    rc, out, err = bob.run("follow", "@ann_" + tag)
    check(rc == 0, f"follow: {rc} {out} {err}")
    child = bob.spawn("timeline", "--follow")
    child.expect("following home live")
    rc, out, err = ann.run("post", "before the restart")
    child.expect("before the restart")
    server.stop()
    child.expect("connection lost; reconnecting")
    again = Server(port=server.port)
    try:
        child.expect("live again", timeout=40)
        rc, out, err = ann.run("post", "after the restart")
        check(rc == 0, f"post after the restart: {rc} {out} {err}")
        child.expect("after the restart")
        child.sendintr()
        finish(child, 0)
    finally:
        again.stop()


# ---------------------------------------------------------------------------------------------------- photos

def make_photos(folder):
    """A 640 x 480 JPEG and PNG made with libvips' command-line tool, and the JPEG padded past 5 MB with comment
    segments (the same image; the client sends it with tus)."""
    os.makedirs(folder, exist_ok=True)

    def vips(*args):
        r = subprocess.run(["vips", *args], cwd=folder, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"vips {' '.join(args)}: {r.stderr} (apt-get install libvips-tools)")

    vips("black", "black.v", "640", "480", "--bands", "3")
    vips("linear", "black.v", "orange.v", "1 1 1", "230 120 40", "--uchar")
    vips("linear", "black.v", "teal.v", "1 1 1", "20 140 150", "--uchar")
    vips("jpegsave", "orange.v", "orange.jpg", "--Q", "85")
    vips("pngsave", "teal.v", "teal.png")
    with open(os.path.join(folder, "orange.jpg"), "rb") as f:
        jpeg = f.read()
    padding = b""
    while len(jpeg) + len(padding) < 5_300_000:
        padding += b"\xff\xfe" + (65535).to_bytes(2, "big") + b"p" * 65533
    with open(os.path.join(folder, "big.jpg"), "wb") as f:
        f.write(jpeg[:2] + padding + jpeg[2:])
    return (os.path.join(folder, "orange.jpg"), os.path.join(folder, "teal.png"), os.path.join(folder, "big.jpg"))


def moment_id(out):
    """The moment id of a `moment.created` JSON line."""
    return next(json.loads(l)["moment"]["moment_id"] for l in out.splitlines() if '"moment.created"' in l)


def test_photos_moments_and_avatar(server):
    """Moments between friends: `moment post` of a JPEG and a PNG with a caption (a friend's `listen` shows it live),
    the feed with `--limit` and `--more`, a like counted exactly and shown with the liker's name, a stranger refused
    (not_found) and with an empty feed ("No moments yet"); `avatar set` of a file over 5 MB (uploaded with tus) and
    `avatar remove`; `post --photo` twice and photos-only; usage and local-file errors; `moment delete` by a friend
    refused, by the owner shown live."""
    tag = "".join(random.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(5))
    pia, quin, rex = User(server, "Pia"), User(server, "Quin"), User(server, "Rex")
    for u in (pia, quin, rex):
        rc, out, err = u.run("register", "--phone", u.phone, "--name", u.name, "--password-stdin", "--handle",
                             f"{u.name.lower()}_{tag}", stdin=u.password + "\n")
        check(rc == 0, f"register {u.name}: {rc} {out} {err}")
    befriend(pia, quin)
    jpg, png, big = make_photos(os.path.join(WORK, f"photos-{tag}"))

    rc, out, err = pia.run("moments")
    check(rc == 0 and "No moments yet" in out, f"empty feed: {rc} {out} {err}")
    rc, out, err = pia.run("moment", "post", "/nonexistent.jpg")
    check(rc == 6 and "cannot read /nonexistent.jpg" in err, f"missing file: {rc} {out} {err}")
    rc, out, err = pia.run("moment", "post", *([jpg] * 10))
    check(rc == 2 and "at most 9 photos" in err, f"10 photos: {rc} {out} {err}")
    rc, out, err = pia.run("moment", "post")
    check(rc == 2, f"no photos: {rc} {out} {err}")

    listener = quin.spawn("listen")
    listener.expect("listening as Quin")
    rc, out, err = pia.run("moment", "post", jpg, png, "--caption", "At the lake")
    check(rc == 0 and "uploaded photo 1/2 orange.jpg" in out and "uploaded photo 2/2 teal.png" in out, f"moment post: {rc} {out} {err}")
    m = re.search(rf"posted moment #(\d+) @pia_{tag}: At the lake  \[2 photos: #\d+ 640x480, #\d+ 640x480\]  ♥ 0", out)
    check(m, f"moment line: {out}")
    first = int(m.group(1))
    listener.expect(rf"new moment #{first} @pia_{tag}: At the lake  \[2 photos")
    rc, out, err = pia.run("moment", "post", jpg, "--json")
    check(rc == 0, f"second moment: {rc} {out} {err}")
    lines = [json.loads(l) for l in out.splitlines()]
    check(lines[0]["type"] == "photo.uploaded" and lines[0]["duplicate"] is True and lines[0]["width"] == 640, f"duplicate upload: {out}")
    second = moment_id(out)
    check(second > first, out)
    listener.expect(rf"new moment #{second} ")

    rc, out, err = quin.run("moments", "like", str(first))
    check(rc == 0 and f"liked moment #{first}  ♥ 1" in out, f"like: {rc} {out} {err}")
    listener.expect(rf"@quin_{tag} liked moment #{first}  ♥ 1")
    rc, out, err = quin.run("moments", "like", str(first), "--json")
    r = json.loads(out.splitlines()[0])
    check(rc == 0 and r["type"] == "moment.liked" and r["like_count"] == 1 and r["liked"] is True, f"like again: {rc} {out} {err}")
    rc, out, err = pia.run("moments", "--limit", "1")
    check(rc == 0 and f"#{second} @pia_{tag}" in out and not re.search(rf"^#{first} @", out, re.M) and "more: moments --more" in out,
          f"page 1: {rc} {out} {err}")
    rc, out, err = pia.run("moments", "--more")
    check(rc == 0 and f"#{first} @pia_{tag}: At the lake" in out and f"♥ 1 (@quin_{tag})" in out and "no older moments" in out,
          f"--more: {rc} {out} {err}")
    rc, out, err = pia.run("moments", "--more")
    check(rc == 0 and "no more moments" in out + err and not re.search(rf"^#{first} @", out, re.M), f"--more at the end: {rc} {out} {err}")
    rc, out, err = quin.run("moments", "--json")
    feed = [json.loads(l) for l in out.splitlines()]
    check(rc == 0 and [x["moment"]["moment_id"] for x in feed if x["type"] == "moment"] == [second, first], f"friend's feed: {rc} {out} {err}")
    check(feed[-1]["type"] == "moments.page" and feed[-1]["next_before"] is None, f"page record: {out}")
    liked = next(x["moment"] for x in feed if x["type"] == "moment" and x["moment"]["moment_id"] == first)
    check(liked["liked"] is True and liked["like_count"] == 1 and len(liked["photos"]) == 2, f"liked moment: {liked}")
    rc, out, err = quin.run("moments", "likers", str(first))
    check(rc == 0 and f"@quin_{tag} (Quin)" in out, f"likers: {rc} {out} {err}")
    rc, out, err = quin.run("moments", "like", str(first), "--undo")
    check(rc == 0 and f"not liking moment #{first}  ♥ 0" in out, f"unlike: {rc} {out} {err}")

    # A stranger sees nothing and cannot like.
    rc, out, err = rex.run("moments")
    check(rc == 0 and "No moments yet" in out, f"stranger's feed: {rc} {out} {err}")
    rc, out, err = rex.run("moments", "like", str(first))
    check(rc == 1 and "not_found" in err, f"stranger's like: {rc} {out} {err}")

    # The avatar: a file over 5 MB goes through tus.
    rc, out, err = pia.run("avatar", "set", big)
    check(rc == 0 and "big.jpg (5.3 MB, resumable)" in out and re.search(r"your profile picture is photo #\d+ 640x480", out),
          f"avatar set: {rc} {out} {err}")
    rc, out, err = pia.run("avatar", "set", big, "--json")
    r = [json.loads(l) for l in out.splitlines()]
    check(rc == 0 and r[0]["duplicate"] is True and r[1]["type"] == "avatar.set" and r[1]["profile"]["avatar"]["width"] == 640,
          f"avatar set again: {rc} {out} {err}")
    rc, out, err = pia.run("avatar", "remove", "--json")
    r = json.loads(out.splitlines()[0])
    check(rc == 0 and r["type"] == "avatar.removed" and "avatar" not in r["profile"], f"avatar remove: {rc} {out} {err}")

    # Photos in posts.
    rc, out, err = pia.run("post", "Two photos", "--photo", jpg, "--photo", png)
    check(rc == 0 and re.search(rf"posted #\d+ @pia_{tag}: Two photos .*\[2 photos: #\d+ 640x480, #\d+ 640x480\]", out), f"post --photo: {rc} {out} {err}")
    rc, out, err = pia.run("post", "--photo", png, "--json")
    post = [json.loads(l) for l in out.splitlines()][-1]
    check(rc == 0 and post["type"] == "post.created" and len(post["post"]["photos"]) == 1, f"photo-only post: {rc} {out} {err}")
    rc, out, err = pia.run("post", "too many", *sum((["--photo", jpg] for _ in range(5)), []))
    check(rc == 2 and "at most 4 photos" in err, f"5 photos: {rc} {out} {err}")

    # Deleting: a friend cannot, the owner can; the friend's listen shows it.
    rc, out, err = quin.run("moment", "delete", str(first))
    check(rc == 1 and "not_found" in err, f"friend deletes: {rc} {out} {err}")
    rc, out, err = pia.run("moment", "delete", str(first))
    check(rc == 0 and f"deleted moment #{first}" in out, f"delete: {rc} {out} {err}")
    listener.expect(rf"moment #{first} was deleted")
    listener.sendintr()
    finish(listener, 0)
    rc, out, err = quin.run("moments")
    check(rc == 0 and not re.search(rf"^#{first} @", out, re.M) and re.search(rf"^#{second} @", out, re.M), f"feed after delete: {rc} {out} {err}")


def test_pins(server):
    """Pam and Ray pin, list and unpin messages of their chat; the pins are the conversation's (both see them)."""
    pam, ray = User(server, "Pam"), User(server, "Ray")
    pam.register()
    ray.register()
    befriend(pam, ray)
    rc, out, err = pam.run("chat", "Ray", stdin="the address is 5 Elm St\nsee you at 8\n/quit\n", timeout=60)
    check(rc == 0 and out.count("delivered") == 2, f"scripted chat: {rc} {out[-300:]} {err}")
    first, second = re.findall(r"delivered \(#(\d+)\)", out)[-2:]

    # Without a seq: the latest message. With one: that message.
    rc, out, err = ray.run("pin", "Pam")
    latest = rf"pinned: 📌 #{second} .*Pam: see you at 8  \(pinned by you\)"
    check(rc == 0 and re.search(latest, out), f"pin latest: {rc} {out} {err}")
    rc, out, err = ray.run("pin", "Pam", first, "--json")
    record = json.loads(out.strip().splitlines()[-1])
    check(rc == 0 and record["type"] == "pin.added" and record["seq"] == int(first)
          and record["text"] == "the address is 5 Elm St" and isinstance(record["pinned_by"], int)
          and record["pinned_by"] != record["sender_id"], f"pin --json: {rc} {out} {err}")
    # Pinning again changes nothing (same pin, exit 0).
    rc, out, err = pam.run("pin", "Ray", first)
    check(rc == 0 and "pinned by Ray" in out, f"pin again: {rc} {out} {err}")

    # Both members see the same list, latest pin first, on a terminal.
    child = pam.spawn("pins", "Ray")
    # #first was pinned after #second: it comes first. The lines arrive as they are drawn, so the second is
    # waited for after the first (expect reads in order) rather than looked for on a screen that may not have it yet.
    child.expect(rf"📌 #{first} .*you: the address is 5 Elm St  \(pinned by Ray\)")
    child.expect(rf"📌 #{second} .*you: see you at 8  \(pinned by Ray\)")
    child.expect(r"2 of at most 50 pinned in Ray")
    finish(child, 0)

    rc, out, err = ray.run("unpin", "Pam", second)
    check(rc == 0 and f"unpinned #{second}" in out, f"unpin: {rc} {out} {err}")
    rc, out, err = ray.run("unpin", "Pam", second)
    check(rc == 0, f"unpin again: {rc} {out} {err}")
    rc, out, err = pam.run("pins", "Ray", "--json")
    pins = [json.loads(line) for line in out.splitlines() if line.strip()]
    check(rc == 0 and [p["seq"] for p in pins if p["type"] == "pin"] == [int(first)]
          and pins[-1]["type"] == "pins" and pins[-1]["count"] == 1, f"pins --json: {rc} {out} {err}")

    # Usage errors: no such seq, no such chat (exit 2); a seq of Int64's largest value does not trap.
    rc, out, err = ray.run("pin", "Pam", "999")
    check(rc == 2 and "no message 999" in err, f"unknown seq: {rc} {err}")
    rc, out, err = ray.run("unpin", "Pam", "9223372036854775807")
    check(rc == 2 and "no message" in err, f"largest seq: {rc} {err}")
    rc, out, err = ray.run("pins", "Nobody")
    check(rc == 2 and "no friend or group" in err, f"unknown chat: {rc} {err}")


def main():
    only = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
    for path in (SERVER, CLI):
        if not os.access(path, os.X_OK):
            print(f"missing {path}: run swift build first", file=sys.stderr)
            return 2
    passed, failed = 0, 0
    servers = []
    print("database: " + ("SWITCHBOARD_TEST_DATABASE_URL" if DATABASE_URL else "the server's embedded PostgreSQL"), flush=True)

    def run(name, fn, *args):
        nonlocal passed, failed
        if only and only not in name:
            return
        started = time.time()
        try:
            fn(*args)
            passed += 1
            print(f"PASS {name} ({time.time() - started:.1f} s)", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next test runs
            failed += 1
            print(f"FAIL {name}: {error}", flush=True)
            traceback.print_exc()
            for child in SPAWNED:
                state = "running" if child.isalive() else f"exited {child.exitstatus}"
                print(f"  --- screen of {os.path.basename(child.logfile_read.name)} ({state}):")
                print("    " + screen(child)[-1500:].replace("\n", "\n    "))
        finally:
            for child in SPAWNED:
                if child.isalive():
                    child.close(force=True)
            SPAWNED.clear()

    try:
        server = Server()
        servers.append(server)
        ann, bob = User(server, "Ann"), User(server, "Bob")
        ann.register()
        bob.register()
        befriend(ann, bob)
        run("accounts_and_token_file", test_accounts_and_token_file, server)
        run("friends_and_colour", test_friends_and_colour, server, ann, bob)
        run("chat_history_more_live_and_voice", test_chat_history_more_live_and_voice, server, ann, bob)
        run("call_answered_then_hangup", test_call_answered_then_hangup, server, ann, bob)
        run("call_hangup_from_another_process_and_json", test_call_hangup_from_another_process_and_json, server, ann, bob)
        run("call_declined_and_cancelled", test_call_declined_and_cancelled, server, ann, bob)
        run("call_with_offer_file_and_unavailable", test_call_with_offer_file_and_unavailable, server, ann, bob)
        run("pins", test_pins, server)
        run("report_and_moderation", test_report_and_moderation, server, ann, bob)
        run("hours_and_profile_settings", test_hours_and_profile_settings, server, ann, bob)
        run("account_export_and_delete", test_account_export_and_delete, server)
        run("communities_events_and_calendar", test_communities_events_and_calendar, server, ann, bob)
        run("photos_moments_and_avatar", test_photos_moments_and_avatar, server)
        if not only or "social" in only:
            sam, tia, uma = social_users(server)
            run("social_handles_posts_and_thread", test_social_handles_posts_and_thread, server, sam, tia, uma)
            run("social_timeline_follow_live", test_social_timeline_follow_live, server, sam, tia, uma)
            run("social_protected_follow_and_likes", test_social_protected_follow_and_likes, server, sam, tia, uma)
        server.stop()
        servers.remove(server)
        if not only or "restart" in only:
            restarted = Server()
            servers.append(restarted)
            run("social_follow_survives_a_restart", test_social_follow_survives_a_restart, restarted)
        if not only or "timeout" in only:
            short = Server("--ring-timeout", "3")
            servers.append(short)
            run("call_times_out", test_call_times_out, short)
        if not only or "verify" in only:
            verifying = Server("--phone-verification", "required", "--sms-gateway", "log", "--log-level", "notice")
            servers.append(verifying)
            run("verify_register_and_reset_password", test_verify_register_and_reset_password, verifying)
    except Exception as error:  # noqa: BLE001 - set-up failures count as a failure
        failed += 1
        print(f"FAIL set-up: {error}", flush=True)
        traceback.print_exc()
    finally:
        for s in servers:
            s.stop()
        if failed == 0:
            shutil.rmtree(WORK, ignore_errors=True)
        else:
            print(f"screens and server logs kept in {WORK}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
