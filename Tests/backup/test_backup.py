#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Backup and restore tests (issue 21, item 1), driven by an independent client (Python websockets).

The must-show test: a server on its embedded PostgreSQL takes continuous sends from several clients over real
sockets while `switchboard backup` runs; the backup is restored into a new data folder, a server started on it
has every message acknowledged before the backup began (same seq, same text, the voice clip byte for byte), and
every message it has is one a client sent, whole. The same backup also restores into an empty database of the
test PostgreSQL (`--database-url`, when $SWITCHBOARD_TEST_DATABASE_URL is set); non-empty targets are refused;
scheduled backups keep the newest --backup-keep and report on /metrics; a --wal-archive restores to a point in time.

    python3 Tests/backup/test_backup.py [-k NAME]

Uses the debug binary (.build/debug/switchboard, or $SWITCHBOARD_SERVER_BIN). Every wait is bounded; every
process is stopped by PID. Prints one line per test and "N passed, N failed"; exits 1 when a test failed.
"""

import asyncio
import hashlib
import io
import json
import math
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
import wave

import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.environ.get("SWITCHBOARD_SERVER_BIN", os.path.join(ROOT, ".build/debug/switchboard"))
DATABASE_URL = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL", "")
WAIT = 30
PASSWORD = "correct horse battery staple"
SENDERS = 6

WORK = tempfile.mkdtemp(prefix="switchboard-backup-test.")
# As root, the embedded PostgreSQL runs as an unprivileged user that must reach the data folders.
os.chmod(WORK, 0o711)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=WAIT, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def http(method, url, body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError:
        return None, b""


def switchboard(*args, timeout=120):
    """Runs a switchboard subcommand; returns (exit status, stdout + stderr)."""
    r = subprocess.run([SERVER, *args], capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout + r.stderr


class Server:
    """`switchboard serve` on 127.0.0.1 with the embedded PostgreSQL (data_dir) or an external one; stopped by PID."""

    def __init__(self, name, data_dir=None, database_url=None, extra=()):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.log_path = os.path.join(WORK, f"{name}.log")
        args = [SERVER, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "notice",
                "--loops", "2", "--register-burst-per-address", "100000", "--login-burst-per-address", "100000",
                "--login-burst-per-phone", "100000", *extra]
        # Phone verification off on the embedded PostgreSQL too (its default requires a code).
        args += ["--data-dir", data_dir, "--phone-verification", "off"] if data_dir else ["--database-url", database_url]
        self.proc = subprocess.Popen(args, stdout=open(self.log_path, "a"), stderr=subprocess.STDOUT)
        wait_for(lambda: self.status("/readyz") == 200, 60, f"{name} ready")

    def status(self, path):
        if self.proc.poll() is not None:
            raise AssertionError(f"server exited with {self.proc.returncode}: {open(self.log_path).read()[-2000:]}")
        return http("GET", self.base + path)[0]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class Client:
    def __init__(self, url, name):
        self.url, self.name = url, name
        self.next_id = 0
        self.pending = {}
        self.events = []

    async def connect(self):
        self.ws = await websockets.connect(self.url, subprotocols=["switchboard.v1"], open_timeout=10, max_size=2**24)
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for raw in self.ws:
                m = json.loads(raw)
                if "re" in m and m["re"] in self.pending:
                    self.pending.pop(m["re"]).set_result(m)
                else:
                    self.events.append(m)
        except websockets.ConnectionClosed:
            pass
        finally:
            for f in self.pending.values():
                if not f.done():
                    f.set_exception(ConnectionError(f"{self.name}: connection closed"))
                    f.exception()
            self.pending.clear()

    async def call(self, op, **params):
        self.next_id += 1
        rid = self.next_id
        fut = asyncio.get_event_loop().create_future()
        self.pending[rid] = fut
        await self.ws.send(json.dumps(dict(id=rid, op=op, **params)))
        return await asyncio.wait_for(fut, WAIT)

    async def ok(self, op, **params):
        r = await self.call(op, **params)
        if "error" in r:
            raise AssertionError(f"{self.name}: {op} failed: {r['error']}")
        return r["ok"]

    async def register(self):
        self.phone = "+1555" + str(random.randint(1000000, 9999999))
        r = await self.ok("register", phone=self.phone, password=PASSWORD, display_name=self.name, device="test")
        self.token, self.user_id = r["session_token"], r["user_id"]

    async def until(self, predicate, what):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for e in self.events:
                if predicate(e):
                    return e
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.name}: timed out waiting for {what}")

    async def history(self, cid):
        """Every message of a conversation, oldest first (paged through messages.history)."""
        out, before = [], None
        while True:
            params = dict(conversation_id=cid, limit=100)
            if before:
                params["before"] = before
            page = await self.ok("messages.history", **params)
            out += page["messages"]
            if not page["has_more"] or not page["messages"]:
                return sorted(out, key=lambda m: m["seq"])
            before = min(m["seq"] for m in page["messages"])

    async def close(self):
        await self.ws.close()
        await asyncio.wait([self.reader], timeout=5)


async def befriend(a, b):
    await a.ok("friends.request", user_id=b.user_id)
    ev = await b.until(lambda e: e.get("ev") == "friend.request.received"
                       and e["request"]["from"]["user_id"] == a.user_id, "friend request")
    await b.ok("friends.accept", request_id=ev["request"]["request_id"])


def sine_wav(seconds=1.0, rate=16000):
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate)))
                               for i in range(int(seconds * rate))))
    return buffer.getvalue()


def make_database():
    """A fresh, empty database in the test PostgreSQL; returns its connection string."""
    name = f"backup_{os.getpid()}_{random.randint(0, 1 << 30)}"
    psql = shutil.which("psql") or next((os.path.join(d, "psql") for d in sorted(
        (os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")), reverse=True)
        if os.path.exists(os.path.join(d, "psql"))), None)
    subprocess.run([psql, DATABASE_URL, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True,
                   timeout=30)
    parts = [p for p in DATABASE_URL.split() if not p.startswith("dbname=")]
    return " ".join(parts + [f"dbname={name}"])


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


async def check_restored(server, senders, acked_before, sent, voice):
    """Every message acked before the backup began is on `server` (same seq, same text); every message there
    is one a sender sent, whole; the voice clip downloads byte for byte."""
    found = 0
    for s in senders:
        c = Client(server.url, s.name + "-restored")
        await c.connect()
        await c.ok("authenticate", token=s.token)  # sessions are data too: the old token works
        messages = await c.history(s.cid)
        by_seq = {m["seq"]: m for m in messages}
        for seq, text in acked_before[s.name]:
            assert seq in by_seq, f"{s.name}: acked message seq {seq} ({text}) missing after restore"
            assert by_seq[seq].get("text") == text, f"{s.name}: seq {seq} is {by_seq[seq]} not {text!r}"
        for m in messages:
            if m.get("kind", "text") == "text" and m["sender_id"] == s.user_id:
                assert m["text"] in sent[s.name], f"{s.name}: a message nobody sent (half-written?): {m}"
            if m.get("kind") == "voice":
                assert m["voice"]["voice_id"] == voice["voice_id"], m
        found += len(acked_before[s.name])
        await c.close()
    status, body = http("GET", f"{server.base}/voice/{voice['voice_id']}",
                        headers={"Authorization": f"Bearer {senders[0].token}"})
    assert status == 200 and hashlib.sha256(body).hexdigest() == voice["sha256"], (status, len(body))
    return found


@test
async def backup_under_send_load_restores_every_acknowledged_message():
    """Six clients send continuously (one request in flight each) while `switchboard backup` runs against the
    running server; restore into a new data folder and into an empty external database; both servers have every
    message acknowledged before the backup began, and only whole messages the clients sent."""
    d1, backup_dir, d2 = (os.path.join(WORK, n) for n in ("d1", "b1", "d2"))
    server = Server("source", data_dir=d1)
    senders, peers = [], []
    try:
        for i in range(SENDERS):
            s, p = Client(server.url, f"s{i}"), Client(server.url, f"p{i}")
            for c in (s, p):
                await c.connect()
                await c.register()
            await befriend(s, p)
            s.cid = (await s.ok("conversations.direct", user_id=p.user_id))["conversation"]["conversation_id"]
            senders.append(s)
            peers.append(p)
        # A voice message, so the backup has a clip (stored in PostgreSQL) to carry.
        status, body = http("POST", f"{server.base}/voice", sine_wav(),
                            {"Authorization": f"Bearer {senders[0].token}", "Content-Type": "audio/wav"})
        assert status == 201, (status, body)
        voice = json.loads(body)
        await senders[0].ok("messages.send", conversation_id=senders[0].cid, voice_id=voice["voice_id"])

        acks = {s.name: [] for s in senders}  # (monotonic time of the ack, seq, text)
        sent = {s.name: set() for s in senders}
        stop = asyncio.Event()

        async def load(s):
            k = 0
            while not stop.is_set():
                text = f"{s.name} message {k} " + "x" * random.randint(0, 300)
                sent[s.name].add(text)
                ack = await s.ok("messages.send", conversation_id=s.cid, text=text, client_id=f"{s.name}-{k}")
                acks[s.name].append((time.monotonic(), ack["seq"], text))
                k += 1

        tasks = [asyncio.create_task(load(s)) for s in senders]
        await asyncio.sleep(1.5)
        began = time.monotonic()
        code, out = await asyncio.to_thread(switchboard, "backup", "--data-dir", d1, "--to", backup_dir)
        ended = time.monotonic()
        await asyncio.sleep(0.5)
        stop.set()
        await asyncio.gather(*tasks)
        assert code == 0, out
        manifest = json.load(open(os.path.join(backup_dir, "manifest.json")))
        assert manifest["schemaVersion"] >= 6 and manifest["dumpBytes"] > 0 and manifest["voiceClips"] == 1, manifest
        acked_before = {n: [(seq, text) for t, seq, text in a if t < began] for n, a in acks.items()}
        during = sum(1 for a in acks.values() for t, _, _ in a if began <= t <= ended)
        total_before = sum(len(v) for v in acked_before.values())
        assert total_before >= SENDERS * 5, f"too little load before the backup: {total_before}"
        assert during > 0, "no send was acknowledged while the backup ran (the load must go on)"
        assert manifest["messages"] >= total_before + 1, (manifest["messages"], total_before)
        after = sum(len(a) for a in acks.values()) - total_before
        for c in senders + peers:
            await c.close()
    finally:
        server.stop()

    # Into a new data folder (embedded).
    code, out = switchboard("restore", "--data-dir", d2, "--from", backup_dir)
    assert code == 0, out
    restored = Server("restored", data_dir=d2)
    try:
        found = await check_restored(restored, senders, acked_before, sent, voice)
    finally:
        restored.stop()
    # A second restore into the same folder is refused and changes nothing.
    code, out = switchboard("restore", "--data-dir", d2, "--from", backup_dir)
    assert code != 0 and "refusing to restore" in out and "already holds data" in out, out

    # Into an empty external database, and that database backed up again through --database-url.
    if DATABASE_URL:
        url = make_database()
        code, out = switchboard("restore", "--database-url", url, "--from", backup_dir)
        assert code == 0, out
        code, out = switchboard("restore", "--database-url", url, "--from", backup_dir)
        assert code != 0 and "refusing to restore" in out, out
        external = Server("external", database_url=url)
        try:
            await check_restored(external, senders, acked_before, sent, voice)
        finally:
            external.stop()
        code, out = switchboard("backup", "--database-url", url, "--to", os.path.join(WORK, "b2"))
        assert code == 0, out
        again = json.load(open(os.path.join(WORK, "b2", "manifest.json")))
        assert again["messages"] == manifest["messages"] and again["source"] == "external", (again, manifest)
    return f"{found} acked before the backup, {during} acked during it, {after} after it began"


@test
async def refusals_and_bad_folders():
    """A backup into a non-empty folder and a restore from a folder without a finished backup are refused."""
    occupied = os.path.join(WORK, "occupied")
    os.makedirs(occupied)
    open(os.path.join(occupied, "x"), "w").close()
    code, out = switchboard("backup", "--data-dir", os.path.join(WORK, "none"), "--to", occupied)
    assert code != 0 and "is not empty" in out, out
    code, out = switchboard("backup", "--data-dir", os.path.join(WORK, "none"), "--to", os.path.join(WORK, "b-none"))
    assert code != 0 and "holds no PostgreSQL cluster" in out, out
    code, out = switchboard("restore", "--data-dir", os.path.join(WORK, "d-none"), "--from", occupied)
    assert code != 0 and "not a finished backup" in out, out
    assert not os.path.exists(os.path.join(WORK, "d-none", "postgres")), "a refused restore created a cluster"
    code, out = switchboard("backup", "--help")
    assert "--to" in out and "consistent snapshot" in out, out


@test
async def scheduled_backups_keep_the_newest():
    """--backup-every 1 --backup-keep 2: backups appear under --backup-dir, at most two are kept, each restorable
    in form (a manifest and its dump), and /metrics has the last success time and no failures."""
    root = os.path.join(WORK, "scheduled")
    server = Server("scheduled", data_dir=os.path.join(WORK, "d3"),
                    extra=["--backup-dir", root, "--backup-every", "1", "--backup-keep", "2"])
    try:
        def metric(name):
            _, body = http("GET", server.base + "/metrics")
            for line in body.decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[1])
            return None

        seen = set()

        def enough():
            finished = [e for e in os.listdir(root) if e.startswith("backup-") and not e.endswith(".partial")] \
                if os.path.isdir(root) else []
            seen.update(finished)
            return len(seen) >= 4

        wait_for(enough, 60, "four scheduled backups")
        last = metric("switchboard_backup_last_success_timestamp_seconds")
        assert last is not None and abs(last - time.time()) < 30, last
        assert (metric("switchboard_backup_failures_total") or 0) == 0
    finally:
        server.stop()
    # Looked at once the server has stopped (a shutdown waits for a run in progress): while it runs, a backup made
    # every second is renamed into place before the oldest is removed, and a folder being removed can lose its
    # manifest between a listing and the read of it.
    entries = sorted(os.listdir(root))
    assert len(entries) == 2 and not any(e.endswith(".partial") for e in entries), entries
    for e in entries:
        m = json.load(open(os.path.join(root, e, "manifest.json")))
        assert os.path.getsize(os.path.join(root, e, m["dumpFile"])) == m["dumpBytes"], m


@test
async def scheduled_backups_take_turns_across_nodes():
    """Two nodes on one database, both with --backup-every 2: they take turns (an advisory lock for the dump and
    a skip when the other node finished one within the interval) instead of each dumping the same database, so
    the backups of both folders together are about one per interval, not two, and /metrics counts the skips."""
    if not DATABASE_URL:
        return "skipped: needs $SWITCHBOARD_TEST_DATABASE_URL (two nodes on one external database)"
    url = make_database()
    roots = [os.path.join(WORK, f"turns-{n}") for n in "ab"]
    servers = []
    try:
        for n, root in zip("ab", roots):
            servers.append(Server(f"turns-{n}", database_url=url,
                                  extra=["--backup-dir", root, "--backup-every", "2", "--backup-keep", "100"]))
        def finished():
            return sum(len([e for e in os.listdir(r) if e.startswith("backup-") and not e.endswith(".partial")])
                       if os.path.isdir(r) else 0 for r in roots)

        started, before = time.monotonic(), finished()

        def metric(server, name):
            _, body = http("GET", server.base + "/metrics")
            for line in body.decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[1])
            return 0.0

        wait_for(lambda: time.monotonic() - started > 12 and finished() - before >= 2, 60, "backups over 12 s")
        elapsed = time.monotonic() - started
        total = finished() - before
        skipped = sum(metric(s, "switchboard_backup_skipped_total") for s in servers)
        failures = sum(metric(s, "switchboard_backup_failures_total") for s in servers)
        # One node dumping every 2 s makes about elapsed / 2; two nodes each dumping would make twice that.
        # (A node skips when the other finished within 90% of the interval: at most one backup per 1.8 s.)
        assert total <= elapsed / 1.8 + 1, f"{total} backups in {elapsed:.1f} s by two nodes"
        assert skipped >= 2 and failures == 0, f"skipped {skipped}, failures {failures}"
        return f"{total} backups in {elapsed:.1f} s, {skipped:.0f} turns skipped"
    finally:
        for server in servers:
            server.stop()


@test
async def point_in_time_restore_from_the_wal_archive():
    """--wal-archive: a base backup at the start and every WAL segment archived (--wal-archive-timeout 1); messages
    sent before a time T and after it; `restore --from ARCHIVE --until T` into a new data folder has every message
    acknowledged before T and none sent after T; without --until it has them all."""
    archive, d1 = os.path.join(WORK, "archive"), os.path.join(WORK, "pitr1")
    server = Server("pitr", data_dir=d1, extra=["--wal-archive", archive, "--wal-archive-timeout", "1"])
    try:
        wait_for(lambda: any(not e.endswith(".partial") for e in os.listdir(os.path.join(archive, "base")))
                 if os.path.isdir(os.path.join(archive, "base")) else False, 60, "the first base backup")
        s, p = Client(server.url, "pitr-s"), Client(server.url, "pitr-p")
        for c in (s, p):
            await c.connect()
            await c.register()
        await befriend(s, p)
        s.cid = (await s.ok("conversations.direct", user_id=p.user_id))["conversation"]["conversation_id"]
        before = [(await s.ok("messages.send", conversation_id=s.cid, text=f"before {k}"))["seq"] for k in range(20)]
        await asyncio.sleep(1.2)
        until = time.time()
        await asyncio.sleep(1.2)
        after = [(await s.ok("messages.send", conversation_id=s.cid, text=f"after {k}"))["seq"] for k in range(20)]
        # Wait until the segment holding the later messages is archived (archive_timeout forces a switch).
        wal = os.path.join(archive, "wal")
        count = len(os.listdir(wal))
        wait_for(lambda: len([e for e in os.listdir(wal) if not e.endswith(".tmp")]) > count, 30, "a newer WAL segment")
        for c in (s, p):
            await c.close()
    finally:
        server.stop()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(until)) + f".{int(until % 1 * 1000):03d}Z"
    results = {}
    for name, extra in (("pitr-until", ["--until", stamp]), ("pitr-all", [])):
        d = os.path.join(WORK, name)
        code, out = switchboard("restore", "--data-dir", d, "--from", archive, *extra)
        assert code == 0, out
        restored = Server(name, data_dir=d)
        try:
            c = Client(restored.url, name)
            await c.connect()
            await c.ok("authenticate", token=s.token)
            results[name] = {m["seq"]: m["text"] for m in await c.history(s.cid) if m.get("kind") == "text"}
            await c.close()
        finally:
            restored.stop()
    got = results["pitr-until"]
    assert all(seq in got for seq in before), f"missing messages sent before --until: {sorted(set(before) - set(got))}"
    assert not any(seq in got for seq in after), f"messages sent after --until restored: {sorted(set(after) & set(got))}"
    assert all(seq in results["pitr-all"] for seq in before + after), "the full replay lacks messages"
    code, out = switchboard("restore", "--data-dir", os.path.join(WORK, "pitr-until"), "--from", archive)
    assert code != 0 and "already holds data" in out, out
    code, out = switchboard("restore", "--data-dir", os.path.join(WORK, "pitr-early"), "--from", archive,
                            "--until", "2020-01-01T00:00:00Z")
    assert code != 0 and "no base backup finished before" in out, out


async def main():
    names = sys.argv[sys.argv.index("-k") + 1].split(",") if "-k" in sys.argv else None
    passed = failed = 0
    try:
        for fn in TESTS:
            if names and not any(n in fn.__name__ for n in names):
                continue
            started = time.monotonic()
            try:
                note = await fn()
                passed += 1
                print(f"ok   {fn.__name__} ({time.monotonic() - started:.1f} s){': ' + note if note else ''}")
            except Exception:
                failed += 1
                print(f"FAIL {fn.__name__}")
                traceback.print_exc()
    finally:
        if failed == 0:
            shutil.rmtree(WORK, ignore_errors=True)
        else:
            print(f"logs kept in {WORK}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
