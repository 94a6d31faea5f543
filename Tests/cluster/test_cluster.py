#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Cluster tests: three server processes on 127.0.0.1, 127.0.0.2 and 127.0.0.3 sharing one PostgreSQL and one
Redis, driven by an independent client (Python websockets).

Starts its own redis-server on a free loopback port (restarted by one test), a fresh database in the test
PostgreSQL ($SWITCHBOARD_TEST_DATABASE_URL, exported by scripts/test.sh) and the debug server binary
(.build/debug/switchboard serve) three times with --redis-url. Every wait is bounded; every process is
stopped by PID.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/cluster/test_cluster.py [-k NAME]

Prints one line per test and a closing "N passed, N failed"; exits 1 when a test failed.
"""

import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.environ.get("SWITCHBOARD_SERVER_BIN", os.path.join(ROOT, ".build/debug/switchboard"))
DATABASE_URL = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL", "")
WAIT = 20  # seconds any single expectation may take
HEARTBEAT_TTL = 1.0
PRESENCE_GRACE = 1.0
RING_TIMEOUT = 3

WORK = tempfile.mkdtemp(prefix="switchboard-cluster-test.")
os.chmod(WORK, 0o711)


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=WAIT, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except Exception:
        return None


class Redis:
    """A redis-server on a free loopback port, without persistence; stopped (or killed) by PID."""

    def __init__(self):
        self.port = free_port()
        self.proc = None
        self.start()

    def start(self):
        self.log = open(os.path.join(WORK, f"redis-{self.port}.log"), "a")
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(self.ready, 10, "redis-server")

    def ready(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"


class Node:
    """One server process on 127.0.0.N; stopped or killed by PID."""

    def __init__(self, n, database_url, redis_url, port):
        self.n = n
        self.host = f"127.0.0.{n}"
        self.port = port
        self.url = f"ws://{self.host}:{port}/ws"
        self.log_path = os.path.join(WORK, f"node{n}.log")
        self.log = open(self.log_path, "a")
        args = [SERVER, "serve", "--host", self.host, "--port", str(port), "--log-level", "notice",
                "--database-url", database_url, "--redis-url", redis_url,
                "--node-heartbeat-interval", "0.2", "--node-heartbeat-ttl", str(HEARTBEAT_TTL),
                "--presence-grace", str(PRESENCE_GRACE), "--ring-timeout", str(RING_TIMEOUT),
                "--db-pool-size", "4", "--loops", "2", "--register-burst-per-address", "100000",
                "--login-burst-per-address", "100000", "--login-burst-per-phone", "100000",
                "--export-dir", os.path.join(WORK, "exports")]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(lambda: self.status("/readyz") == 200, WAIT, f"node {n} ready")

    def status(self, path):
        if self.proc.poll() is not None:
            raise AssertionError(f"node {self.n} exited with {self.proc.returncode}: {open(self.log_path).read()[-2000:]}")
        return http_status(f"http://{self.host}:{self.port}{path}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


class Client:
    """A protocol v1 client with resume: it keeps the highest contiguous seq per conversation and, after a
    reconnect (to any of its URLs), authenticates with resume and syncs from there."""

    def __init__(self, urls, name):
        self.urls = urls if isinstance(urls, list) else [urls]
        self.name = name
        self.ws = None
        self.next_id = 0
        self.events = []
        self.pending = {}
        self.seqs = {}  # conversation id -> set of seqs received (events, acks, sync)
        self.token = None
        self.user_id = None
        self.reader = None
        self.closed_codes = []
        self.url_index = 0
        self.resumes = 0

    async def connect(self, index=None):
        if index is not None:
            self.url_index = index
        last = None
        for attempt in range(len(self.urls) * 20):
            url = self.urls[self.url_index % len(self.urls)]
            try:
                self.ws = await websockets.connect(url, subprotocols=["switchboard.v1"], open_timeout=5, max_size=2**24)
                self.url = url
                self.reader = asyncio.create_task(self.read())
                return
            except Exception as e:  # the node may be gone: the next URL
                last = e
                self.url_index += 1
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name}: no node reachable: {last}")

    async def read(self):
        try:
            async for raw in self.ws:
                m = json.loads(raw)
                if "re" in m and m["re"] in self.pending:
                    self.pending.pop(m["re"]).set_result(m)
                    continue
                if m.get("ev") == "message":
                    msg = m["message"]
                    self.seqs.setdefault(msg["conversation_id"], []).append(msg["seq"])
                self.events.append(m)
        except websockets.ConnectionClosed as e:
            self.closed_codes.append(e.rcvd.code if e.rcvd else None)
        finally:
            for f in self.pending.values():
                if not f.done():
                    f.set_exception(ConnectionError(f"{self.name}: connection closed"))
                    f.exception()  # retrieved here: a caller that gave up on it must not log it
            self.pending.clear()

    async def call(self, op, timeout=WAIT, **params):
        self.next_id += 1
        rid = self.next_id
        fut = asyncio.get_event_loop().create_future()
        self.pending[rid] = fut
        await self.ws.send(json.dumps(dict(id=rid, op=op, **params)))
        return await asyncio.wait_for(fut, timeout)

    async def ok(self, op, **params):
        r = await self.call(op, **params)
        if "error" in r:
            raise AssertionError(f"{self.name}: {op} failed: {r['error']}")
        return r["ok"]

    async def register(self, display_name):
        phone = "+1555" + str(random.randint(1000000, 9999999))
        r = await self.ok("register", phone=phone, password="correct horse battery staple", display_name=display_name,
                          device=self.name)
        self.phone = phone
        self.token = r["session_token"]
        self.user_id = r["user_id"]
        return r

    async def authenticate(self, token, resume=False):
        self.token = token
        r = await self.ok("authenticate", token=token, resume=resume)
        self.user_id = r["user_id"]
        return r

    async def resume(self):
        """Reconnects (next URL on failure) and resumes from the highest contiguous seqs."""
        self.resumes += 1
        await self.connect()
        await self.authenticate(self.token, resume=True)
        since = {str(c): self.contiguous(c) for c in self.seqs}
        await self.ok("sync", since=since)

    def contiguous(self, conversation):
        got = set(self.seqs.get(conversation, []))
        s = 0
        while s + 1 in got:
            s += 1
        return s

    async def send(self, conversation, text, client_id=None):
        params = dict(conversation_id=conversation, text=text)
        if client_id:
            params["client_id"] = client_id
        ack = await self.ok("messages.send", **params)
        self.seqs.setdefault(conversation, []).append(ack["seq"])
        return ack

    async def until(self, predicate, timeout=WAIT, what="event"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.events:
                if predicate(e):
                    return e
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.name}: timed out waiting for {what}; got {self.events[-5:]}")

    def messages(self, conversation):
        return [e["message"] for e in self.events if e.get("ev") == "message" and e["message"]["conversation_id"] == conversation]

    async def close(self):
        if self.ws:
            await self.ws.close()
        if self.reader:
            await asyncio.wait([self.reader], timeout=5)


async def befriend(a, b):
    await a.ok("friends.request", user_id=b.user_id)
    ev = await b.until(lambda e: e.get("ev") == "friend.request.received" and e["request"]["from"]["user_id"] == a.user_id,
                       what="friend request")
    await b.ok("friends.accept", request_id=ev["request"]["request_id"])


class Cluster:
    def __init__(self):
        self.redis = Redis()
        self.database_url = make_database()
        self.port = free_port()
        self.nodes = [Node(n, self.database_url, self.redis.url, self.port) for n in (1, 2, 3)]

    @property
    def urls(self):
        return [n.url for n in self.nodes]

    def stop(self):
        for n in self.nodes:
            n.stop()
        self.redis.kill()


def make_database():
    """A fresh database in the test PostgreSQL (the suite's own, so other suites never see it)."""
    name = f"cluster_{os.getpid()}_{random.randint(0, 1 << 30)}"
    base = DATABASE_URL
    psql = shutil.which("psql") or next((os.path.join(d, "psql") for d in sorted(
        (os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")), reverse=True)
        if os.path.exists(os.path.join(d, "psql"))), None)
    subprocess.run([psql, base, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True, timeout=30)
    parts = [p for p in base.split() if not p.startswith("dbname=")]
    return " ".join(parts + [f"dbname={name}"])


CLUSTER = None
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# MARK: tests


@test
async def a_group_with_members_on_every_node():
    """Six users, two on each node, in one group: every message reaches every other member exactly once, on
    whichever node they are, and the senders' acks and the events agree."""
    users = [Client(CLUSTER.urls[i % 3], f"g{i}") for i in range(6)]
    for i, u in enumerate(users):
        await u.connect()
        await u.register(f"G{i}")
    for u in users[1:]:
        await befriend(users[0], u)
    group = await users[0].ok("groups.create", name="everywhere", member_ids=[u.user_id for u in users[1:]])
    cid = group["conversation"]["conversation_id"]
    # The creator has the group's first messages in the reply (the others get them as events).
    users[0].seqs[cid] = list(range(1, group["conversation"]["last_seq"] + 1))
    for i, u in enumerate(users):
        for k in range(5):
            await u.send(cid, f"from {i} #{k}", client_id=f"g{i}-{k}")
    last = max(max(u.seqs[cid]) for u in users)
    for u in users:
        await u.until(lambda e: u.contiguous(cid) >= last, what=f"all of group seqs up to {last}")
    for u in users:
        got = [m["seq"] for m in u.messages(cid)]
        assert len(got) == len(set(got)), f"{u.name}: duplicate events {sorted(got)}"
        assert u.contiguous(cid) == last, f"{u.name}: gap: {sorted(set(u.seqs[cid]))}"
    for u in users:
        await u.close()


@test
async def a_user_with_devices_on_two_nodes_is_one_presence():
    """Ann's two devices are on nodes 2 and 3, her friend Bob on node 1: both devices get Bob's messages, Bob
    sees one 'online' and, when both devices are gone, one 'offline' after the grace."""
    bob = Client(CLUSTER.urls[0], "bob")
    ann2 = Client(CLUSTER.urls[1], "ann@2")
    await bob.connect()
    await bob.register("Bob")
    await ann2.connect()
    await ann2.register("Ann")
    await befriend(bob, ann2)
    ann3 = Client(CLUSTER.urls[2], "ann@3")
    await ann3.connect()
    await ann3.authenticate(ann2.token)
    cid = (await bob.ok("conversations.direct", user_id=ann2.user_id))["conversation"]["conversation_id"]
    ack = await bob.send(cid, "to both devices")
    for d in (ann2, ann3):
        await d.until(lambda e: e.get("ev") == "message" and e["message"]["seq"] == ack["seq"], what="message on each device")
    online = lambda e: e.get("ev") == "presence" and e["user_id"] == ann2.user_id and e["status"] == "online"
    await bob.until(lambda e: online(e) or (e.get("ev") == "presence.snapshot" and any(
        p["user_id"] == ann2.user_id and p["status"] == "online" for p in e["presence"])), what="Ann online for Bob")
    await ann2.close()
    await asyncio.sleep(PRESENCE_GRACE + 0.5)
    # Counted after the grace, not straight after the first 'online' arrived: a second one (for the second device)
    # would come after it, and was not waited for.
    assert len([e for e in bob.events if online(e)]) <= 1, "Ann was announced online more than once (per device, not per user)"
    offline = [e for e in bob.events if e.get("ev") == "presence" and e["user_id"] == ann2.user_id and e["status"] == "offline"]
    assert not offline, "Ann went offline while a device was still connected on node 3"
    await ann3.close()
    await bob.until(lambda e: e.get("ev") == "presence" and e["user_id"] == ann2.user_id and e["status"] == "offline",
                    what="Ann offline after her last device")
    await bob.close()


@test
async def concurrent_sends_from_every_node_are_gapless_and_idempotent_anywhere():
    """Three devices of one pair, one per node, send 3 x 150 messages at once (windowed): the seqs are 1..450
    without a gap or a duplicate; a resend with the same client id through another node gets the original ack."""
    a1 = Client(CLUSTER.urls[0], "c@1")
    b = Client(CLUSTER.urls[1], "c-b@2")
    await a1.connect()
    await a1.register("C")
    await b.connect()
    await b.register("CB")
    await befriend(a1, b)
    a2 = Client(CLUSTER.urls[1], "c@2")
    a3 = Client(CLUSTER.urls[2], "c@3")
    for d in (a2, a3):
        await d.connect()
        await d.authenticate(a1.token)
    cid = (await a1.ok("conversations.direct", user_id=b.user_id))["conversation"]["conversation_id"]

    async def burst(d, tag):
        acks = []
        for w in range(0, 150, 10):
            acks += await asyncio.gather(*(d.send(cid, f"{tag}{k}", client_id=f"{tag}-{k}") for k in range(w, w + 10)))
        return acks
    results = await asyncio.gather(burst(a1, "x"), burst(a2, "y"), burst(a3, "z"))
    seqs = sorted(a["seq"] for r in results for a in r)
    assert seqs == list(range(1, 451)), f"seqs not 1..450: {seqs[:5]}...{seqs[-5:]} ({len(seqs)}, {len(set(seqs))} unique)"
    original = results[0][7]
    again = await a3.ok("messages.send", conversation_id=cid, text="x7", client_id="x-7")
    assert again == original, f"resend through node 3 answered {again}, not {original}"
    await b.until(lambda e: b.contiguous(cid) >= 450, what="all 450 at the recipient")
    assert len(b.messages(cid)) == 450, f"recipient got {len(b.messages(cid))} events"
    for d in (a1, a2, a3, b):
        await d.close()


@test
async def revocation_and_friendship_reach_every_node():
    """A session revoked through node 1 closes its connection on node 3 (4001, after `session.revoked`); a
    friendship made through node 2 starts presence between devices on nodes 1 and 3 at once."""
    a1 = Client(CLUSTER.urls[0], "v@1")
    await a1.connect()
    await a1.register("V")
    a3 = Client(CLUSTER.urls[2], "v@3")
    await a3.connect()
    await a3.authenticate(a1.token)
    # `logout` on node 1 revokes the session: its connection on node 3 gets session.revoked and 4001.
    await a1.call("logout")
    await a3.until(lambda e: e.get("ev") == "session.revoked", what="session.revoked on node 3")
    await a3.until(lambda e: a3.ws.close_code is not None, what="close on node 3")
    assert a3.ws.close_code == 4001, f"closed with {a3.ws.close_code}"
    # Friendship through node 2: presence flows between nodes 1 and 3 at once.
    p1 = Client(CLUSTER.urls[0], "p@1")
    p3 = Client(CLUSTER.urls[2], "p@3")
    q2 = Client(CLUSTER.urls[1], "q@2")
    for c in (p1, q2):
        await c.connect()
        await c.register(c.name)
    await p3.connect()
    await p3.authenticate(p1.token)
    q3 = Client(CLUSTER.urls[2], "q@3")
    await q3.connect()
    await q3.authenticate(q2.token)
    await p1.ok("friends.request", user_id=q2.user_id)
    ev = await q2.until(lambda e: e.get("ev") == "friend.request.received", what="request")
    await q2.ok("friends.accept", request_id=ev["request"]["request_id"])
    await p1.until(lambda e: e.get("ev") == "presence" and e["user_id"] == q2.user_id and e["status"] == "online",
                   what="the new friend's presence on node 1")
    await q2.close()
    await q3.close()
    await p1.until(lambda e: e.get("ev") == "presence" and e["user_id"] == q2.user_id and e["status"] == "offline",
                   what="the new friend offline on node 1 after its devices on nodes 2 and 3 left")
    for c in (p1, p3):
        await c.close()


@test
async def a_suspension_on_one_node_closes_the_session_on_another():
    """An administrator on node 1 (granted with `switchboard admin grant`) suspends a user whose device is on
    node 2: that connection gets `account.suspended` and closes with 4004; its token is refused
    (`account_suspended`) through node 3 until it is reinstated."""
    admin = Client(CLUSTER.urls[0], "mod@1")
    await admin.connect()
    await admin.register("Mod")
    granted = subprocess.run([SERVER, "admin", "grant", admin.phone, "--database-url", CLUSTER.database_url],
                             capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, f"admin grant: {granted.returncode} {granted.stderr}"
    target = Client(CLUSTER.urls[1], "sus@2")
    await target.connect()
    await target.register("Sus")
    await admin.ok("admin.suspend", user_id=target.user_id, reason="cluster test")
    await target.until(lambda e: e.get("ev") == "account.suspended", what="account.suspended on node 2")
    await target.until(lambda e: target.ws.close_code is not None, what="close on node 2")
    assert target.ws.close_code == 4004, f"closed with {target.ws.close_code}"
    again = Client(CLUSTER.urls[2], "sus@3")
    await again.connect()
    r = await again.call("authenticate", token=target.token)
    assert r.get("error", {}).get("code") == "account_suspended", f"authenticate after suspension: {r}"
    await admin.ok("admin.reinstate", user_id=target.user_id)
    await again.ok("authenticate", token=target.token)
    for c in (admin, again):
        await c.close()


async def call_pair(caller_node, callee_nodes, tag):
    """A caller on `caller_node` and a callee with one device per node of `callee_nodes`, friends."""
    caller = Client(CLUSTER.urls[caller_node], f"{tag}-caller@{caller_node + 1}")
    await caller.connect()
    await caller.register(caller.name)
    devices = []
    for i, n in enumerate(callee_nodes):
        d = Client(CLUSTER.urls[n], f"{tag}-callee@{n + 1}")
        await d.connect()
        if i == 0:
            await d.register(d.name)
        else:
            # Another device: a session of its own (a call rings sessions).
            r = await d.ok("login", phone=devices[0].phone, password="correct horse battery staple", device=d.name)
            d.token, d.user_id = r["session_token"], r["user_id"]
        devices.append(d)
    await befriend(caller, devices[0])
    return caller, devices


def ev(name, call_id=None):
    return lambda e: e.get("ev") == name and (call_id is None or e.get("call_id") == call_id)


@test
async def calls_across_nodes_through_every_outcome():
    """Caller on node 1, callee on node 2 (and node 3): accepted with the SDP answer and ICE relayed both ways,
    then hung up (one call.ended each, one history row); declined; cancelled; missed after the ring timeout;
    busy and already_in_call across nodes; answered elsewhere (the callee's other device on another node); glare."""
    # Accepted, relayed, hung up.
    caller, (callee,) = await call_pair(0, [1], "acc")
    inv = await caller.ok("call.invite", callee_id=callee.user_id, offer="v=0 offer")
    cid = inv["call"]["call_id"]
    assert inv["disposition"] == "ringing", inv
    ring = await callee.until(ev("call.ring", cid), what="ring on node 2")
    assert ring["caller"]["user_id"] == caller.user_id and ring.get("offer") == "v=0 offer", ring
    await callee.ok("call.accept", call_id=cid, answer="v=0 answer")
    acc = await caller.until(ev("call.accepted", cid), what="accepted on node 1")
    assert acc.get("answer") == "v=0 answer", acc
    cand = json.dumps({"candidate": "candidate:1 1 udp 2122260223 192.0.2.10 50000 typ host", "sdpMid": "0", "sdpMLineIndex": 0})
    await caller.ok("call.signal", call_id=cid, kind="ice_candidate", payload=cand)
    await callee.until(lambda e: ev("call.signal", cid)(e) and e["kind"] == "ice_candidate", what="ICE to node 2")
    await callee.ok("call.signal", call_id=cid, kind="ice_candidate", payload=cand)
    await caller.until(lambda e: ev("call.signal", cid)(e) and e["kind"] == "ice_candidate", what="ICE to node 1")
    await caller.ok("call.hangup", call_id=cid)
    for c in (caller, callee):
        await c.until(ev("call.ended", cid), what=f"{c.name}: call.ended")
        assert len([e for e in c.events if ev("call.ended", cid)(e)]) == 1, f"{c.name}: call.ended twice"
    history = await callee.ok("call.history")
    assert [h["call_id"] for h in history["calls"]].count(cid) == 1, history

    # Declined, and cancelled.
    inv = await caller.ok("call.invite", callee_id=callee.user_id)
    cid = inv["call"]["call_id"]
    await callee.until(ev("call.ring", cid), what="second ring")
    await callee.ok("call.decline", call_id=cid)
    end = await caller.until(ev("call.ended", cid), what="declined on node 1")
    assert end["reason"] == "declined", end
    inv = await caller.ok("call.invite", callee_id=callee.user_id)
    cid = inv["call"]["call_id"]
    await callee.until(ev("call.ring", cid), what="third ring")
    await caller.ok("call.cancel", call_id=cid)
    end = await callee.until(ev("call.ended", cid), what="cancelled on node 2")
    assert end["reason"] == "cancelled", end

    # Missed after the ring timeout (fires once, for both).
    inv = await caller.ok("call.invite", callee_id=callee.user_id)
    cid = inv["call"]["call_id"]
    await callee.until(ev("call.ring", cid), what="ring before the timeout")
    for c in (caller, callee):
        end = await c.until(ev("call.ended", cid), timeout=RING_TIMEOUT + 10, what=f"{c.name}: timed out")
        assert end["reason"] in ("timeout", "missed", "no_answer"), end
    await asyncio.sleep(0.5)
    for c in (caller, callee):
        assert len([e for e in c.events if ev("call.ended", cid)(e)]) == 1, f"{c.name}: the ring timeout fired twice"

    # Busy and already_in_call across nodes: a third user on node 3 calls the callee while in a call.
    other = Client(CLUSTER.urls[2], "busy@3")
    await other.connect()
    await other.register("Busy")
    await befriend(other, callee)
    inv = await caller.ok("call.invite", callee_id=callee.user_id)
    cid = inv["call"]["call_id"]
    await callee.until(ev("call.ring", cid), what="ring for the busy case")
    await callee.ok("call.accept", call_id=cid)
    busy = await other.ok("call.invite", callee_id=callee.user_id)
    assert busy["disposition"] == "busy", busy
    again = await caller.call("call.invite", callee_id=other.user_id)
    assert "error" in again or again["ok"]["disposition"] in ("busy",), again
    if "error" in again:
        assert again["error"]["code"] in ("already_in_call", "not_friends"), again
    await caller.ok("call.hangup", call_id=cid)
    await callee.until(ev("call.ended", cid), what="ended after busy")
    for c in (caller, callee, other):
        await c.close()

    # Answered elsewhere: the callee's devices on nodes 2 and 3 ring; node 3 answers; node 2 is told.
    caller, (d2, d3) = await call_pair(0, [1, 2], "else")
    inv = await caller.ok("call.invite", callee_id=d2.user_id)
    cid = inv["call"]["call_id"]
    for d in (d2, d3):
        await d.until(ev("call.ring", cid), what=f"{d.name}: ring")
    await d3.ok("call.accept", call_id=cid)
    await d2.until(ev("call.answered_elsewhere", cid), what="answered elsewhere on node 2")
    await caller.until(ev("call.accepted", cid), what="accepted from node 3")
    late = await d2.call("call.accept", call_id=cid)
    assert late.get("error", {}).get("code") in ("invalid_state", "forbidden"), late
    await caller.ok("call.hangup", call_id=cid)
    await d3.until(ev("call.ended", cid), what="ended on node 3")
    for c in (caller, d2, d3):
        await c.close()

    # Glare: the callee (node 2) invites the caller (node 1) while the caller's call still rings: no second call;
    # the callee's invite joins the ringing one (with the caller's offer) and the caller is told it was accepted.
    caller, (callee,) = await call_pair(0, [1], "glare")
    inv = await caller.ok("call.invite", callee_id=callee.user_id, offer="v=0 glare offer")
    cid = inv["call"]["call_id"]
    await callee.until(ev("call.ring", cid), what="ring before the glare")
    joined = await callee.ok("call.invite", callee_id=caller.user_id, offer="v=0 other offer")
    assert joined["disposition"] == "joined", joined
    assert joined["call"]["call_id"] == cid and joined["call"].get("offer") == "v=0 glare offer", joined
    await caller.until(ev("call.accepted", cid), what="glare: accepted on node 1")
    assert not [e for e in caller.events if e.get("ev") == "call.ring"], "the caller was rung by the glare invite"
    await caller.ok("call.hangup", call_id=cid)
    await callee.until(ev("call.ended", cid), what="glare: ended on node 2")
    history = await caller.ok("call.history")
    assert [h["call_id"] for h in history["calls"]].count(cid) == 1, history
    assert len(history["calls"]) == 1, history
    for c in (caller, callee):
        await c.close()


@test
async def a_node_killed_under_load_costs_one_reconnect():
    """Pairs spread over the nodes send continuously; node 3 is killed with SIGKILL. Its clients reconnect to the
    other nodes and resume: at the end every client holds every acknowledged message of its conversation exactly
    once, and users left on node 3 go offline for their friends on the other nodes after TTL + grace."""
    global CLUSTER
    pairs = []
    for i in range(6):
        a = Client([CLUSTER.urls[i % 3], CLUSTER.urls[(i + 1) % 3]], f"k{i}a")
        b = Client([CLUSTER.urls[(i + 1) % 3], CLUSTER.urls[(i + 2) % 3]], f"k{i}b")
        for c in (a, b):
            await c.connect()
            await c.register(c.name)
        await befriend(a, b)
        cid = (await a.ok("conversations.direct", user_id=b.user_id))["conversation"]["conversation_id"]
        pairs.append((a, b, cid))
    watcher = Client(CLUSTER.urls[0], "watcher")
    await watcher.connect()
    await watcher.register("Watcher")
    lonely = Client(CLUSTER.urls[2], "lonely")  # stays on node 3 and never reconnects
    await lonely.connect()
    await lonely.register("Lonely")
    await befriend(watcher, lonely)
    acked = {cid: set() for _, _, cid in pairs}
    stop = time.monotonic() + 4

    async def sender(c, cid, tag):
        k = 0
        while time.monotonic() < stop:
            k += 1
            for attempt in range(50):
                try:
                    ack = await c.send(cid, f"{tag} {k}", client_id=f"{tag}-{k}")
                    acked[cid].add(ack["seq"])
                    break
                except (ConnectionError, asyncio.TimeoutError, AssertionError, websockets.ConnectionClosed):
                    # The node died: reconnect (next URL) and resend with the same client id.
                    await asyncio.sleep(0.1)
                    try:
                        await c.resume()
                    except Exception:
                        pass
            await asyncio.sleep(0.01)

    async def killer():
        await asyncio.sleep(1.5)
        CLUSTER.nodes[2].kill()

    try:
        await killed_node_checks(pairs, acked, watcher, lonely, sender, killer)
    finally:
        # Node 3 comes back for the next tests (a new process: a new node number).
        if CLUSTER.nodes[2].proc.poll() is not None:
            CLUSTER.nodes[2] = Node(3, CLUSTER.database_url, CLUSTER.redis.url, CLUSTER.port)


async def killed_node_checks(pairs, acked, watcher, lonely, sender, killer):
    tasks = [sender(a, cid, a.name) for a, b, cid in pairs] + [sender(b, cid, b.name) for a, b, cid in pairs] + [killer()]
    await asyncio.gather(*tasks)
    # Receivers that were on node 3 resume too.
    for a, b, cid in pairs:
        for c in (a, b):
            if c.ws.close_code is not None or c.url.startswith(f"ws://127.0.0.3"):
                await c.resume()
    for a, b, cid in pairs:
        top = max(acked[cid])
        for c in (a, b):
            await c.until(lambda e: c.contiguous(cid) >= top, what=f"{c.name}: every acked seq up to {top}")
            events = [m["seq"] for m in c.messages(cid)]
            # Once each; a client that resumed may be given a message twice, live just after its `authenticate
            # {resume}` and again in the `sync` it asked for from an older seq (clients drop the repeat by seq).
            repeats = {s for s in events if events.count(s) > 1}
            assert not repeats or (c.resumes and all(events.count(s) == 2 for s in repeats)), \
                f"{c.name}: a message delivered twice without a resume: {sorted(events)}"
        history = await a.ok("messages.history", conversation_id=cid, limit=100)
        stored = {m["seq"] for m in history["messages"]}
        assert max(acked[cid]) in stored and acked[cid] <= set(range(1, top + 1)), "an acknowledged message is not stored"
    await watcher.until(lambda e: e.get("ev") == "presence" and e["user_id"] == lonely.user_id and e["status"] == "offline",
                        timeout=HEARTBEAT_TTL + PRESENCE_GRACE + 10, what="the killed node's user offline")
    for a, b, _ in pairs:
        await a.close()
        await b.close()
    await watcher.close()


@test
async def redis_restarted_under_load():
    """Redis is killed: every node reports not ready, the same node's clients still exchange messages; Redis comes
    back empty: the nodes recover without a restart, tell their clients to reconnect (1012), and after they resume
    every acknowledged message is held exactly once."""
    a = Client(CLUSTER.urls[0], "r-a@1")
    b = Client(CLUSTER.urls[0], "r-b@1")
    c = Client(CLUSTER.urls[1], "r-c@2")
    for x in (a, b, c):
        await x.connect()
        await x.register(x.name)
    await befriend(a, b)
    await befriend(a, c)
    ab = (await a.ok("conversations.direct", user_id=b.user_id))["conversation"]["conversation_id"]
    ac = (await a.ok("conversations.direct", user_id=c.user_id))["conversation"]["conversation_id"]
    await a.send(ab, "before")
    await a.send(ac, "before")
    CLUSTER.redis.kill()
    wait_for(lambda: all(n.status("/readyz") == 503 for n in CLUSTER.nodes), 10, "every node not ready")
    ack = await a.send(ab, "during, same node")
    await b.until(lambda e: e.get("ev") == "message" and e["message"]["seq"] == ack["seq"], what="local delivery without Redis")
    during = await a.send(ac, "during, to another node")
    CLUSTER.redis.start()
    wait_for(lambda: all(n.status("/readyz") == 200 for n in CLUSTER.nodes), 20, "every node ready again")
    for x in (a, b, c):
        await x.until(lambda e: x.ws.close_code is not None, timeout=10, what=f"{x.name} asked to reconnect")
        assert x.ws.close_code == 1012, f"{x.name} closed with {x.ws.close_code}"
        await x.resume()
    await c.until(lambda e: c.contiguous(ac) >= during["seq"], what="the message sent while Redis was down")
    after = await a.send(ac, "after")
    await c.until(lambda e: c.contiguous(ac) >= after["seq"], what="delivery across nodes after recovery")
    for x, cid in ((b, ab), (c, ac)):
        got = [m["seq"] for m in x.messages(cid)]
        assert len(got) == len(set(got)), f"{x.name}: duplicates {sorted(got)}"
    for x in (a, b, c):
        await x.close()


def metric(node, name):
    """The value of a counter on a node's /metrics (0 when not there yet)."""
    with urllib.request.urlopen(f"http://{node.host}:{node.port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.split()[-1])
    return 0.0


@test
async def a_node_paused_past_its_ttl_closes_its_clients_and_they_resume():
    """Node 2 is stopped (SIGSTOP) longer than the heartbeat TTL: node 1 expires it, so a message sent meanwhile to
    a client of node 2 is not delivered to it live. When node 2 runs again it closes its clients with 1012, and the
    client's resume brings the message (issue 37)."""
    a = Client(CLUSTER.urls[0], "p-a@1")
    c = Client(CLUSTER.urls[1], "p-c@2")
    for x in (a, c):
        await x.connect()
        await x.register(x.name)
    await befriend(a, c)
    ac = (await a.ok("conversations.direct", user_id=c.user_id))["conversation"]["conversation_id"]
    before = await a.send(ac, "before the pause")
    await c.until(lambda e: c.contiguous(ac) >= before["seq"], what="the message before the pause")
    first, paused = CLUSTER.nodes[0], CLUSTER.nodes[1]
    expired = metric(first, "switchboard_cluster_nodes_expired_total")
    os.kill(paused.proc.pid, signal.SIGSTOP)
    try:
        wait_for(lambda: metric(first, "switchboard_cluster_nodes_expired_total") > expired, 10, "node 2 expired")
        during = await a.send(ac, "during the pause")
    finally:
        os.kill(paused.proc.pid, signal.SIGCONT)
    await c.until(lambda e: c.ws.close_code is not None, timeout=10, what="node 2 asks its client to reconnect")
    assert c.ws.close_code == 1012, f"closed with {c.ws.close_code}"
    await c.resume()
    await c.until(lambda e: c.contiguous(ac) >= during["seq"], what="the message sent during the pause")
    got = [m["seq"] for m in c.messages(ac)]
    assert len(got) == len(set(got)), f"duplicates {sorted(got)}"
    wait_for(lambda: paused.status("/readyz") == 200, 10, "node 2 ready again")
    for x in (a, c):
        await x.close()


@test
async def an_account_deleted_on_one_node_closes_its_devices_on_every_node():
    """Dee has devices on nodes 1 and 2, her friend Eli is on node 3. Her export, requested on node 1, downloads
    from node 2; her deletion on node 1 closes both devices with 4005 (the event first), Eli hears user.deleted,
    and the job (worked by whichever node) leaves Eli a gapless history with her messages as tombstones."""
    dee1 = Client(CLUSTER.urls[0], "dee@1")
    eli = Client(CLUSTER.urls[2], "eli@3")
    await dee1.connect()
    await dee1.register("Dee")
    await eli.connect()
    await eli.register("Eli")
    await befriend(dee1, eli)
    dee2 = Client(CLUSTER.urls[1], "dee@2")
    await dee2.connect()
    await dee2.authenticate(dee1.token)
    cid = (await dee1.ok("conversations.direct", user_id=eli.user_id))["conversation"]["conversation_id"]
    for k in range(3):
        await dee1.send(cid, f"dee {k}", client_id=f"dee-{k}")
        await eli.send(cid, f"eli {k}", client_id=f"eli-{k}")

    export = (await dee1.ok("account.export"))["export"]
    ready = await dee1.until(lambda e: e.get("ev") == "account.export_ready", what="export ready")
    assert ready["export"]["state"] == "ready", ready
    node2 = CLUSTER.nodes[1]
    request = urllib.request.Request(f"http://{node2.host}:{node2.port}/export/{export['export_id']}",
                                     headers={"Authorization": f"Bearer {dee1.token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200 and len(response.read()) == ready["export"]["size"]

    await dee1.ok("account.delete", password="correct horse battery staple")
    for device in (dee1, dee2):
        await device.until(lambda e: e.get("ev") == "account.deleted" and e["user_id"] == dee1.user_id, what="account.deleted")
        for _ in range(int(WAIT / 0.05)):
            if device.closed_codes:
                break
            await asyncio.sleep(0.05)
        assert device.closed_codes == [4005], f"{device.name}: closed with {device.closed_codes}"
    await eli.until(lambda e: e.get("ev") == "user.deleted" and e["user_id"] == dee1.user_id, what="user.deleted")

    deadline = time.monotonic() + WAIT
    while True:
        history = (await eli.ok("messages.history", conversation_id=cid, limit=100))["messages"]
        dees = [m for m in history if m["sender_id"] == dee1.user_id]
        if all(m.get("sender_deleted") for m in dees) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    assert sorted(m["seq"] for m in history) == list(range(1, len(history) + 1)), history
    assert len(dees) == 3 and all(m.get("sender_deleted") and m.get("deleted") and "text" not in m for m in dees), dees
    assert sorted(m["text"] for m in history if m["sender_id"] == eli.user_id) == ["eli 0", "eli 1", "eli 2"]
    for c in (dee1, dee2, eli):
        await c.close()


@test
async def active_hours_of_devices_on_two_nodes_count_once():
    """Fay has devices on nodes 2 and 3 at the same time for a few seconds; her friend Gus on node 1 reads her active
    hours: live while she is connected (node 1 knows her open interval from the directory), then from what nodes 2
    and 3 wrote: about the wall time she was connected, not the sum of both devices."""
    gus = Client(CLUSTER.urls[0], "gus@1")
    await gus.connect()
    await gus.register("Gus")
    fay2 = Client(CLUSTER.urls[1], "fay@2")
    await fay2.connect()
    await fay2.register("Fay")
    # From her session's start (the registration's password hashing took 2 of the 4 s once on a loaded machine).
    started = time.monotonic()
    await befriend(gus, fay2)
    fay3 = Client(CLUSTER.urls[2], "fay@3")
    await fay3.connect()
    await fay3.authenticate(fay2.token)

    async def total():
        r = await gus.ok("stats.active_hours", user_id=fay2.user_id)
        return sum(d["seconds"] for d in r["days"])
    deadline = time.monotonic() + WAIT
    while await total() < 1:
        assert time.monotonic() < deadline, "Fay's open interval never showed on node 1"
        await asyncio.sleep(0.2)
    await asyncio.sleep(max(0.0, 4 - (time.monotonic() - started)))
    await fay2.close()
    await fay3.close()
    elapsed = time.monotonic() - started
    # Written by nodes 2 and 3 (after their flush delay); stable once both writes are in.
    last, stable_since = -1, time.monotonic()
    deadline = time.monotonic() + WAIT
    while time.monotonic() - stable_since < 2.5:
        assert time.monotonic() < deadline, "Fay's time never settled"
        now = await total()
        if now != last:
            last, stable_since = now, time.monotonic()
        await asyncio.sleep(0.2)
    assert 3 <= last <= elapsed + 2, f"Fay's two devices over {elapsed:.1f} s counted {last} s (twice would be about {2 * elapsed:.0f})"
    await gus.close()


def run_sql(database_url, sql):
    """Runs one SQL statement on the cluster's database with psql (for what only the operator does: roles)."""
    psql = shutil.which("psql") or next((os.path.join(d, "psql") for d in sorted(
        (os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")), reverse=True)
        if os.path.exists(os.path.join(d, "psql"))), None)
    subprocess.run([psql, database_url, "-q", "-c", sql], check=True, capture_output=True, timeout=30)


@test
async def an_event_published_on_one_node_notifies_members_on_the_others_within_3_s():
    """Issue 22: an administrator on node 1 publishes an event; members connected to nodes 2 and 3 receive the
    `community.notification` within 3 s of the reply. A join on node 2 reaches the joiner's other device on node
    3 (`event.joined`), and the cancellation from node 1 reaches every member's devices."""
    admin = Client(CLUSTER.urls[0], "ev-admin")
    ann = Client(CLUSTER.urls[1], "ev-ann")
    bob = Client(CLUSTER.urls[2], "ev-bob")
    for c, name in ((admin, "Admin"), (ann, "Ann"), (bob, "Bob")):
        await c.connect()
        await c.register(name)
    run_sql(CLUSTER.database_url, f"UPDATE users SET role = 'admin' WHERE id = {admin.user_id}")
    ann2 = Client(CLUSTER.urls[2], "ev-ann-2")
    await ann2.connect()
    await ann2.authenticate(ann.token)
    club = (await admin.ok("communities.create", name=f"Cluster club {random.randint(0, 1 << 30)}"))["community"]["community_id"]
    for c in (ann, bob):
        await c.ok("communities.join", community_id=club)

    starts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 86400))
    ends = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 90000))
    published = await admin.ok("events.create", community_id=club, title="Picnic", starts_at=starts, ends_at=ends,
                               time_zone="Europe/Paris", capacity=10)
    replied = time.monotonic()
    event_id = published["event"]["event_id"]
    for c in (ann, ann2, bob):
        remaining = max(0.0, 3.0 - (time.monotonic() - replied))
        n = await c.until(lambda e: e.get("ev") == "community.notification" and e["notification"].get("event_id") == event_id
                          and e["notification"]["kind"] == "event.published", timeout=remaining,
                          what="community.notification within 3 s")
        assert n["notification"]["community_id"] == club and n["notification"]["title"] == "Picnic", n

    joined = await ann.ok("events.join", event_id=event_id)
    assert joined["event"]["joined"] and joined["event"]["participant_count"] == 1, joined
    await ann2.until(lambda e: e.get("ev") == "event.joined" and e["event"]["event_id"] == event_id, what="event.joined on node 3")
    await admin.ok("events.cancel", event_id=event_id)
    for c in (ann, ann2, bob):
        await c.until(lambda e: e.get("ev") == "community.notification" and e["notification"]["kind"] == "event.cancelled"
                      and e["notification"].get("event_id") == event_id, what="event.cancelled")
    for c in (admin, ann, ann2, bob):
        await c.close()


async def run_one(fn):
    await fn()


def run_two_node_tests(tests, module):
    """Runs `tests` (async functions) against two nodes sharing one fresh database and one Redis, setting
    `module.NODES` (and `module.REDIS`) for them; prints PASS/FAIL lines (with the nodes' log tails on a failure) and "N passed, N failed".
    Returns the exit status. The two-node suites (test_social_live.py, test_moments.py) run through this."""
    if not DATABASE_URL:
        print("SWITCHBOARD_TEST_DATABASE_URL is not set (scripts/test.sh exports it)", file=sys.stderr)
        return 2
    passed = failed = 0
    redis = Redis()
    port = free_port()
    database_url = make_database()
    module.REDIS = redis
    module.NODES = [Node(n, database_url, redis.url, port) for n in (1, 2)]
    try:
        for fn in tests:
            start = time.monotonic()
            try:
                asyncio.run(asyncio.wait_for(fn(), 120))
                passed += 1
                print(f"PASS {fn.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
            except BaseException as e:
                failed += 1
                print(f"FAIL {fn.__name__}: {e!r}", flush=True)
                traceback.print_exc()
                for node in module.NODES:
                    print(f"--- node {node.n} log (tail)")
                    print(open(node.log_path).read()[-3000:])
    finally:
        for node in module.NODES:
            node.stop()
        redis.kill()
    print(f"{passed} passed, {failed} failed")
    if failed == 0:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed else 0


def main():
    global CLUSTER
    if not DATABASE_URL:
        print("SWITCHBOARD_TEST_DATABASE_URL is not set (scripts/test.sh exports it)", file=sys.stderr)
        return 2
    only = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
    passed = failed = 0
    CLUSTER = Cluster()
    try:
        for fn in TESTS:
            if only and only not in fn.__name__:
                continue
            start = time.monotonic()
            try:
                asyncio.run(asyncio.wait_for(run_one(fn), 120))
                passed += 1
                print(f"PASS {fn.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
            except BaseException as e:
                failed += 1
                print(f"FAIL {fn.__name__}: {e!r}", flush=True)
                traceback.print_exc()
                for node in CLUSTER.nodes:
                    print(f"--- node {node.n} log (tail)")
                    print(open(node.log_path).read()[-3000:])
    finally:
        CLUSTER.stop()
    print(f"{passed} passed, {failed} failed")
    if failed == 0:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
