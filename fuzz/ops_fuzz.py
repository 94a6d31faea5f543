#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fuzzes protocol v1's request decoder and every op's handler on a running server with extreme values.

An independent client (Python `websockets`): it registers a few users with friendships, a direct conversation,
a group, messages and a call, then for --seconds keeps --connections authenticated connections busy with
pipelined requests for every op, each parameter either plausible (a real id of its world) or extreme: 64-bit
bounds and just past them, floats, wrong types, NUL and other control characters, lone surrogates, combining
marks by the ten thousand, strings over the request limit, missing and unknown fields, odd envelope ids and ops.

It fails (exit 1, printing the request) when:
  - a reply is `internal` (a server fault) or has an error code that docs/protocol.md does not list,
  - a request with a readable id gets no reply within --reply-timeout seconds, or two replies,
  - a connection is closed with a code other than those the protocol documents for the situation
    (1000 after logout, 4001 after a revocation, 1009/1013 after oversize or backpressure),
  - the server stops answering /healthz, or the --server-pid process is gone.

Usage: fuzz/ops_fuzz.py --url ws://127.0.0.1:PORT/ws [--seconds 30] [--seed N] [--connections 4]
The server needs raised registration and login limits (every user comes from one address):
  serve --register-burst-per-address 100000 --login-burst-per-address 100000 --login-burst-per-phone 100000
"""
import argparse
import asyncio
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.request

import websockets

INT_EXTREMES = [-2**63, 2**63 - 1, -2**63 + 1, 2**63 - 2, -1, 0, 1, 2, 2**31 - 1, -2**31, 2**32, 2**53 + 1, -(2**53) - 1]
OUT_OF_RANGE = [2**63, -2**63 - 1, 2**64, 10**30, -10**30]
FLOATS = [1.5, -0.0, 1e308, -1e308, 1e-300, 0.1]
STRINGS = [
    "", " ", "\u0000", "a\u0000b", "\u0001\u001f\u007f", "\u0085\u2028\u2029", "\ud800", "\udfff\ud800",
    "a" + "\u0301" * 20_000, "\U0001F469\u200D\U0001F469\u200D\U0001F467" * 200, "\u202eevil", "x" * 70_000,
    "x" * 4097, "%s%n%x", "' OR '1'='1' --", "\\", "\"", "{", "null", "-9223372036854775808", "１２３",
    "+15550000000", "00491701234567", "\t\n\r", "🙂" * 5000,
]
WRONG_TYPES = [None, True, False, [], {}, [1, 2], {"a": 1}]
DOCUMENTED_CLOSES = {1000, 1001, 1009, 1013, 4001}
FRESH = random.SystemRandom()


def encode(body):
    """JSON as UTF-8 text where possible (so 20,000 combining marks are 40 KB, not 120 KB of escapes)."""
    text = json.dumps(body, ensure_ascii=False)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:                              # a lone surrogate: only an escape can carry it
        return json.dumps(body)


def documented_error_codes(root):
    text = open(os.path.join(root, "docs", "protocol.md"), encoding="utf-8").read()
    section = text.split("### Error codes", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, re.M))


class World:
    """Ids of real objects, so mutated requests reach deep into the handlers."""

    def __init__(self):
        self.users, self.phones, self.conversations, self.messages = [], [], [], []
        self.requests, self.sessions, self.calls, self.voice = [], [], [], []
        self.tokens = []
        self.communities, self.events, self.posts = [], [], []


class Fuzzer:
    def __init__(self, args, rng, codes):
        self.args, self.rng, self.codes = args, rng, codes
        self.world = World()
        self.findings = []
        self.sent = 0
        self.replies = 0
        self.by_code = {}
        self.by_op = {}
        self.deadline = 0.0

    # -- values -------------------------------------------------------------------------------------------

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def int_value(self, real):
        r = self.rng.random()
        if real and r < 0.45:
            return self.pick(real)
        if r < 0.75:
            return self.pick(INT_EXTREMES)
        if r < 0.85:
            return self.pick(OUT_OF_RANGE)
        if r < 0.92:
            return self.pick(FLOATS)
        return self.pick(WRONG_TYPES + STRINGS[:6])

    def str_value(self, plausible):
        r = self.rng.random()
        if plausible is not None and r < 0.4:
            return plausible() if callable(plausible) else plausible
        if r < 0.9:
            return self.pick(STRINGS)
        return self.pick(WRONG_TYPES + INT_EXTREMES[:3])

    def phone(self):
        # Not from the seeded generator: a replayed seed must not collide with the numbers of an earlier run.
        return "+1" + "".join(str(FRESH.randrange(10)) for _ in range(10))

    # -- requests -----------------------------------------------------------------------------------------

    def templates(self):
        w = self.world
        i, s = self.int_value, self.str_value
        return {
            "register": lambda: {"phone": s(self.phone), "password": s("quite long pass 9"), "display_name": s("Fuzz"),
                                 "device": s("fz"), "code": s(lambda: self.pick(["000000", "1"]))},
            "login": lambda: {"phone": s(lambda: self.pick(w.phones)), "password": s("wrong password 1"), "device": s("fz")},
            "authenticate": lambda: {"token": s(lambda: self.pick(w.tokens)), "resume": self.pick([True, False, None, 1])},
            # Phone verification (issue 37): never a real code, so no fuzz user's password changes.
            "verification.start": lambda: {"phone": s(lambda: self.pick(w.phones or ["+15550000000"])),
                                           "purpose": s(lambda: self.pick(["register", "reset", "other"]))},
            "password.reset": lambda: {"phone": s(lambda: self.pick(w.phones or ["+15550000000"])), "code": s("000000"),
                                       "password": s("quite long pass 9"), "device": s("fz")},
            "ping": lambda: {},
            "sessions.list": lambda: {},
            "sessions.revoke": lambda: {"session_id": i([])},
            "profile.get": lambda: {"user_id": i(w.users)},
            "profile.update": lambda: {"display_name": s("Fuzz Renamed")},
            "friends.request": lambda: self.pick([{"phone": s(lambda: self.pick(w.phones))}, {"user_id": i(w.users)}, {}]),
            "friends.accept": lambda: {"request_id": i(w.requests)},
            "friends.decline": lambda: {"request_id": i(w.requests)},
            "friends.cancel": lambda: {"request_id": i(w.requests)},
            "friends.remove": lambda: {"user_id": i([])},
            "friends.list": lambda: {},
            "friends.requests": lambda: {},
            "contacts.match": lambda: {"phones": self.pick([[s(self.phone) for _ in range(self.rng.randrange(4))],
                                                            s(None), [self.phone()] * 3])},
            "conversations.list": lambda: {},
            "conversations.get": lambda: {"conversation_id": i(w.conversations)},
            "conversations.direct": lambda: {"user_id": i(w.users)},
            "conversations.read": lambda: {"conversation_id": i(w.conversations), "seq": i([1, 2, 3])},
            "groups.create": lambda: {"name": s("Fuzz group"), "member_ids": self.pick(
                [[i(w.users) for _ in range(self.rng.randrange(5))], i([]), w.users[:3]])},
            "groups.add": lambda: {"conversation_id": i(w.conversations), "user_id": i(w.users)},
            "groups.leave": lambda: {"conversation_id": i([])},
            "groups.rename": lambda: {"conversation_id": i(w.conversations), "name": s("Renamed")},
            "messages.send": lambda: self.pick([
                {"conversation_id": i(w.conversations), "client_id": s(lambda: f"c{self.rng.randrange(10**9)}"),
                 "text": s("hello")},
                {"user_id": i(w.users), "text": s("hi")},
                {"conversation_id": i(w.conversations), "voice_id": i(w.voice)},
                {"conversation_id": i(w.conversations), "text": s("x"), "voice_id": i(w.voice)},
            ]),
            "messages.history": lambda: {"conversation_id": i(w.conversations), "before": i([1, 5, 100]), "limit": i([1, 10, 100])},
            "messages.delete": lambda: {"message_id": i([])},
            "messages.hide": lambda: {"message_id": i(w.messages)},
            "messages.pin": lambda: {"message_id": i(w.messages)},
            "messages.unpin": lambda: {"message_id": i(w.messages)},
            "conversations.pins": lambda: {"conversation_id": i(w.conversations)},
            "reactions.set": lambda: {"message_id": i(w.messages), "emoji": s(lambda: self.pick(["👍", "❤️", "x" * 9, "a\u0007"])),
                                      "active": self.pick([True, False, None, 0, "yes"])},
            "sync": lambda: {"since": self.pick([
                {str(self.pick(w.conversations)): i([0, 1])} if w.conversations else {},
                {str(self.pick(INT_EXTREMES + OUT_OF_RANGE)): i([0])},
                {self.pick(STRINGS): 1}, i([]), None])},
            "presence.set": lambda: {"status": s(lambda: self.pick(["online", "away", "offline"]))},
            "typing": lambda: {"conversation_id": i(w.conversations), "activity": s(lambda: self.pick(["typing", "recording"])),
                               "active": self.pick([True, False, None, 0, "yes"])},
            "call.invite": lambda: {"callee_id": i(w.users), "media": s(lambda: self.pick(["voice", "video"])),
                                    "call_id": s(lambda: f"fz{self.rng.randrange(10**9)}"), "offer": s("v=0\r\n")},
            "call.accept": lambda: {"call_id": s(lambda: self.pick(w.calls or ["x"])), "answer": s("v=0\r\n")},
            "call.decline": lambda: {"call_id": s(lambda: self.pick(w.calls or ["x"]))},
            "call.cancel": lambda: {"call_id": s(lambda: self.pick(w.calls or ["x"]))},
            "call.hangup": lambda: {"call_id": s(lambda: self.pick(w.calls or ["x"]))},
            "call.signal": lambda: {"call_id": s(lambda: self.pick(w.calls or ["x"])),
                                    "kind": s(lambda: self.pick(["candidate", "offer", "answer", "end-of-candidates"])),
                                    "payload": s(lambda: json.dumps({"candidate": "candidate:1 1 udp 1 127.0.0.1 9 typ host",
                                                                     "sdpMid": "0", "sdpMLineIndex": self.int_value([0])}))},
            "call.turn": lambda: self.pick([{}, {"call_id": s(lambda: self.pick(w.calls or ["x"]))}]),
            "call.history": lambda: {"before": s(lambda: self.pick(["2030-01-01T00:00:00Z", "0", "9" * 40])), "limit": i([1, 50])},
            # Account (issue 21): never the fuzz users' real password, so no account is deleted under the fuzzer.
            "account.delete": lambda: {"password": s("not the password 7")},
            "account.export": lambda: {},
            "account.exports": lambda: {},
            # Moderation (issue 21): the fuzz users are not administrators, so admin ops must answer forbidden.
            "report.create": lambda: {"target_kind": s(lambda: self.pick(["message", "user", "post"])),
                                      "target_id": i(w.messages + w.users),
                                      "reason": s(lambda: self.pick(["spam", "harassment", "other"])),
                                      "text": s("fuzz report")},
            "admin.reports": lambda: {"status": s(lambda: self.pick(["open", "closed"])), "before": i([1]), "limit": i([1, 100])},
            "admin.remove": lambda: {"message_id": i(w.messages), "reason": s("fuzz")},
            "admin.suspend": lambda: {"user_id": i(w.users), "reason": s("fuzz")},
            "admin.reinstate": lambda: {"user_id": i(w.users)},
            "admin.resolve": lambda: {"report_id": i([1]), "status": s(lambda: self.pick(["resolved", "dismissed"]))},
            "admin.audit": lambda: {"before": i([1]), "limit": i([1, 100])},
            # Communities, events, calendar, courses (issue 22): the workers are not administrators, so publishing
            # answers forbidden; with --admin-command the world has a community, an event and posts to reach.
            "communities.list": lambda: {"limit": i([1, 20, 100]), "cursor": s(lambda: self.pick(["", "AAAA", "x" * 200]))},
            "communities.get": lambda: {"community_id": i(w.communities)},
            "communities.create": lambda: {"name": s("Fuzz club"), "description": s("d"), "category": s("c"), "picture": s("https://x/y.png")},
            "communities.update": lambda: {"community_id": i(w.communities), "name": s("Renamed club"), "picture": s("")},
            "communities.archive": lambda: {"community_id": i(w.communities)},
            "communities.join": lambda: {"community_id": i(w.communities)},
            "communities.quit": lambda: {"community_id": i(w.communities)},
            "communities.members": lambda: {"community_id": i(w.communities), "limit": i([1, 200]), "cursor": s("AAAA")},
            "communities.core": lambda: {"community_id": i(w.communities), "user_id": i(w.users), "core": self.pick([True, False, None, 1])},
            "communities.unread": lambda: {},
            "communities.notifications": lambda: {"community_id": i(w.communities), "before_seq": i([1, 2]), "limit": i([1, 100])},
            "communities.read": lambda: {"community_id": i(w.communities), "seq": i([0, 1, 2])},
            "events.create": lambda: {"community_id": i(w.communities), "title": s("Walk"), "starts_at": s(self.instant),
                                      "ends_at": s(self.instant), "time_zone": s(self.zone), "capacity": i([1, 5, 100000])},
            "events.update": lambda: {"event_id": i(w.events), "title": s("Walk 2"), "ends_at": s(self.instant),
                                      "capacity": self.pick([None, 3, "x", 2**63])},
            "events.cancel": lambda: {"event_id": i(w.events)},
            "events.list": lambda: {"community_id": i(w.communities), "direction": s(lambda: self.pick(["upcoming", "past"])),
                                    "cursor": s("AAAA"), "limit": i([1, 100])},
            "events.get": lambda: {"event_id": i(w.events)},
            "events.join": lambda: {"event_id": i(w.events)},
            "events.drop": lambda: {"event_id": i(w.events)},
            "events.participants": lambda: {"event_id": i(w.events), "cursor": s("1"), "limit": i([1, 100])},
            "calendar.get": lambda: {"range": s(lambda: self.pick(["day", "week", "month", "year"])), "date": s(self.date),
                                     "time_zone": s(self.zone), "locale": s(lambda: self.pick(["fr-FR", "en-US", "und", "x" * 90]))},
            "community.posts.create": lambda: {"community_id": i(w.communities), "kind": s(lambda: self.pick(["announcement", "lesson"])),
                                               "title": s("Lesson"), "body": s("b"), "position": i([1, 2]),
                                               "voice_clip_id": i(w.voice), "video_url": s("https://example.org/v")},
            "community.posts.update": lambda: {"post_id": i(w.posts), "title": s("T"), "video_url": self.pick([None, "ftp://x", "https://a"])},
            "community.posts.delete": lambda: {"post_id": i(w.posts)},
            "community.posts.list": lambda: {"community_id": i(w.communities), "kind": s(lambda: self.pick(["announcement", "lesson"])),
                                             "before": i(w.posts), "limit": i([1, 100])},
            "courses.get": lambda: {"community_id": i(w.communities)},
            "courses.complete": lambda: {"post_id": i(w.posts), "completed": self.pick([True, False, None, 1])},
            "courses.progress": lambda: {"community_id": i(w.communities), "cursor": s("1"), "limit": i([1, 200])},
            # Active hours (issue 22).
            "stats.active_hours": lambda: {"user_id": i(w.users), "from": s(self.date), "to": s(self.date)},
            "stats.active_day": lambda: {"date": s(self.date), "user_id": i(w.users)},
            # Posts and timelines (issue 18): the workers have no handle, so writes answer handle_required.
            "post.create": lambda: {"text": s(lambda: self.pick(["fuzz @ann #tag", "a\u0007", "", "x" * 300, "e\u0301" * 50])),
                                    "reply_to": i([1, 2, 3]), "voice_clip_id": i(w.voice), "client_id": s("c1")},
            "post.get": lambda: {"post_id": i([1, 2, 3])},
            "post.delete": lambda: {"post_id": i([1, 2, 3])},
            "post.like": lambda: {"post_id": i([1, 2, 3])},
            "post.unlike": lambda: {"post_id": i([1, 2, 3])},
            "post.repost": lambda: {"post_id": i([1, 2, 3])},
            "post.unrepost": lambda: {"post_id": i([1, 2, 3])},
            "post.likers": lambda: {"post_id": i([1, 2, 3]), "before": i([1]), "limit": i([1, 100])},
            "timeline.home": lambda: self.pick([{"before": i([1, 50])}, {"after": i([0, 5])}, {"limit": i([1, 20, 100])}, {}]),
            "timeline.user": lambda: self.pick([{"user_id": i(w.users), "replies": self.pick([True, False, None, 1])},
                                                {"handle": s(lambda: self.pick(["ann", "@ann", "no such", ""]))}]),
            "timeline.thread": lambda: {"post_id": i([1, 2, 3]), "after": i([0, 1]), "limit": i([1, 100])},
            "timeline.mentions": lambda: {"before": i([1, 50]), "limit": i([1, 100])},
            "timeline.likes": lambda: {"user_id": i(w.users), "before": i([1]), "limit": i([1, 100])},
            "timeline.hashtag": lambda: {"tag": s(lambda: self.pick(["tag", "#Tag", "123", "東京", ""])), "before": i([1]), "limit": i([1, 100])},
            # Photos, avatars and moments (issue 19): the workers upload no photo, so ids reach the ownership checks.
            "photos.mine": lambda: {"before": i([1, 50]), "limit": i([1, 30, 100])},
            "photos.delete": lambda: {"photo_id": i([1, 2, 3])},
            "profile.avatar.set": lambda: {"photo_id": i([1, 2, 3])},
            "profile.avatar.remove": lambda: {},
            "moments.create": lambda: {"photo_ids": self.pick([[i([1, 2])], [1, 1], list(range(1, 12)), [], None, "1"]),
                                       "caption": s(lambda: self.pick(["a day out", "", "x" * 600, "e\u0301" * 300, "\u0000"])),
                                       "client_id": s("m1")},
            "moments.feed": lambda: self.pick([{"before": i([1, 50])}, {"limit": i([1, 10, 50])}, {}]),
            "moments.get": lambda: {"moment_id": i([1, 2, 3])},
            "moments.delete": lambda: {"moment_id": i([1, 2, 3])},
            "moments.like": lambda: {"moment_id": i([1, 2, 3])},
            "moments.unlike": lambda: {"moment_id": i([1, 2, 3])},
            "moments.likers": lambda: {"moment_id": i([1, 2, 3]), "before": s(lambda: self.pick(["1:1", "x", "-1:-1", "9" * 40])),
                                       "limit": i([1, 100])},
        }

    def instant(self):
        return self.pick(["2030-01-01T10:00:00.000Z", "2030-01-01T12:00:00.000Z", "1970-01-01T00:00:00.000Z",
                          "2030-13-01T00:00:00.000Z", "2030-01-01T10:00:00Z", "9999-12-31T23:59:59.999Z", "2030-01-01"])

    def date(self):
        return self.pick(["2026-11-24", "2026-03-29", "2026-02-29", "2024-02-29", "0000-01-01", "9999-12-31", "2026-1-1", "20261124"])

    def zone(self):
        return self.pick(["Europe/Paris", "America/New_York", "UTC", "Mars/Olympus", "../../etc/passwd", "Asia/Kolkata"])

    def request(self, rid):
        templates = self.templates()
        op = self.pick(list(templates))
        params = templates[op]()
        if not isinstance(params, dict):
            params = {"params": params}
        r = self.rng.random()
        if r < 0.05 and params:
            params.pop(self.pick(list(params)))          # a missing field
        elif r < 0.08:
            params["unknown_" + str(self.rng.randrange(99))] = self.int_value([])
        body = {"id": rid, "op": op, **params}
        r = self.rng.random()
        if r < 0.02:
            body["op"] = self.pick(["", "messages.", "call", "x" * 300, "\u0000", 5, None])
            op = "(odd op)"
        elif r < 0.04:
            body["id"] = self.pick([2**63, -2**63 - 1, 1.5, "x" * 65, None, [], {}])
            rid = None                                     # no reply can be matched to it
        return op, rid, body

    # -- connections --------------------------------------------------------------------------------------

    async def client(self, url):
        return await websockets.connect(url, subprotocols=["switchboard.v1"], max_size=16 * 1024 * 1024,
                                        ping_interval=None, open_timeout=10)

    async def call(self, ws, op, **params):
        await ws.send(json.dumps({"id": "setup", "op": op, **params}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 15))
            if msg.get("re") == "setup":
                if "error" in msg:
                    raise RuntimeError(f"setup {op}: {msg['error']}")
                return msg["ok"]

    async def setup(self):
        w = self.world
        people = []
        for name in ["Ann", "Bob", "Cat", "Dan"]:
            ws = await self.client(self.args.url)
            phone = self.phone()
            r = await self.call(ws, "register", phone=phone, password="fuzzing gently 42", display_name=name, device="fz")
            w.users.append(r["user_id"]); w.phones.append(phone); w.tokens.append(r["session_token"])
            w.sessions.append(r["session_id"])
            people.append(ws)
        a = people[0]
        for k in (1, 2, 3):
            req = await self.call(a, "friends.request", user_id=w.users[k])
            w.requests.append(req["request"]["request_id"])
            await self.call(people[k], "friends.accept", request_id=req["request"]["request_id"])
        direct = await self.call(a, "conversations.direct", user_id=w.users[1])
        w.conversations.append(direct["conversation"]["conversation_id"])
        group = await self.call(a, "groups.create", name="Fuzz", member_ids=w.users[1:3])
        w.conversations.append(group["conversation"]["conversation_id"])
        for c in w.conversations:
            m = await self.call(a, "messages.send", conversation_id=c, text="seed", client_id=f"seed-{c}")
            w.messages.append(m["message_id"])
        if self.args.admin_command:
            # Ann becomes an administrator (the operator's command) and builds a community with an event, an
            # announcement and a lesson; Bob and Cat join, Bob joins the event.
            subprocess.run(self.args.admin_command.replace("{phone}", w.phones[0]), shell=True, check=True,
                           capture_output=True, timeout=60)
            club = await self.call(a, "communities.create", name=f"Fuzz club {FRESH.randrange(10**9)}")
            w.communities.append(club["community"]["community_id"])
            for k in (1, 2):
                await self.call(people[k], "communities.join", community_id=w.communities[0])
            event = await self.call(a, "events.create", community_id=w.communities[0], title="Fuzz walk",
                                    starts_at="2030-01-01T10:00:00.000Z", ends_at="2030-01-01T12:00:00.000Z",
                                    time_zone="Europe/Paris", capacity=50)
            w.events.append(event["event"]["event_id"])
            await self.call(people[1], "events.join", event_id=w.events[0])
            for kind in ("announcement", "lesson"):
                post = await self.call(a, "community.posts.create", community_id=w.communities[0], kind=kind, title="Fuzz " + kind)
                w.posts.append(post["post"]["post_id"])
        call = await self.call(a, "call.invite", callee_id=w.users[1], media="voice", offer="v=0\r\n")
        w.calls.append(call.get("call_id") or call.get("call", {}).get("call_id", "x"))
        for ws in people:
            await ws.close()

    async def worker(self, k):
        w = self.world
        phone, password = self.phone(), "fuzzing gently 42"
        ws = await self.client(self.args.url)
        reg = await self.call(ws, "register", phone=phone, password=password, display_name=f"Fz{k}", device="fz")
        me = reg["user_id"]
        w.users.append(me); w.phones.append(phone)
        # Befriend Ann so that calls, direct messages and groups get past their friendship checks.
        req = await self.call(ws, "friends.request", user_id=w.users[0])
        w.requests.append(req["request"]["request_id"])
        pending = {}
        window = self.args.window
        next_id = 1

        async def reconnect():
            nonlocal ws
            try:
                await ws.close()
            except Exception:
                pass
            try:
                ws = await self.client(self.args.url)
                await self.call(ws, "login", phone=phone, password=password, device="fz")
                return True
            except (OSError, asyncio.TimeoutError, websockets.WebSocketException, RuntimeError) as e:
                self.finding(f"cannot reconnect ({e!r}): the server is down or refuses", {})
                self.deadline = 0
                return False

        while time.monotonic() < self.deadline:
            try:
                while len(pending) < window and time.monotonic() < self.deadline:
                    op, rid, body = self.request(next_id)
                    next_id += 1
                    if self.rng.random() < 0.01:
                        await ws.send(self.pick(["{", "[]", "\"x\"", "{\"id\":\"raw\"}", "\u0000", "{\"id\":\"raw\",\"op\":\"ping\"" * 3]))
                        continue
                    text = encode(body)
                    # Over 64 KiB: `payload_too_large`, with the id, which every frame here starts with (documented:
                    # the id is read from the frame's first bytes).
                    await ws.send(text)
                    self.sent += 1
                    self.by_op[op] = self.by_op.get(op, 0) + 1
                    if rid is not None:
                        pending[rid] = (time.monotonic(), body)
                msg = json.loads(await asyncio.wait_for(ws.recv(), self.args.reply_timeout))
                self.check(msg, pending, k)
                now = time.monotonic()
                for rid, (t, body) in list(pending.items()):
                    if now - t > self.args.reply_timeout:
                        self.finding(f"no reply within {self.args.reply_timeout} s", body)
                        del pending[rid]
            except websockets.ConnectionClosed as e:
                code = e.rcvd.code if e.rcvd else None
                if code not in DOCUMENTED_CLOSES:
                    self.finding(f"connection closed with {code}; requests in flight follow", {})
                    for _, body in pending.values():
                        self.finding("  in flight when it closed", body)
                pending.clear()
                if not await reconnect():
                    return
            except asyncio.TimeoutError:
                for rid, (t, body) in list(pending.items()):
                    self.finding(f"no reply within {self.args.reply_timeout} s", body)
                pending.clear()
        # Every request still in flight must be answered.
        end = time.monotonic() + self.args.reply_timeout
        try:
            while pending and time.monotonic() < end:
                msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, end - time.monotonic())))
                self.check(msg, pending, k)
        except (asyncio.TimeoutError, websockets.ConnectionClosed):
            pass
        for _, body in pending.values():
            self.finding("no reply at the end", body)
        await ws.close()

    def check(self, msg, pending, k):
        if "re" not in msg:
            return                                           # an event
        rid = msg["re"]
        self.replies += 1
        if rid == "raw":
            return                                           # the answer to a hand-made malformed request
        if rid is not None and rid not in pending:
            self.finding("a reply to no request in flight (a second reply?)", msg)
            return
        body = pending.pop(rid, (0, {}))[1] if rid is not None else {}
        if "error" in msg:
            code = msg["error"].get("code")
            self.by_code[code] = self.by_code.get(code, 0) + 1
            if code == "internal" or code not in self.codes:
                self.finding(f"error code {code!r}: {msg['error'].get('message')}", body)
        else:
            self.by_code["ok"] = self.by_code.get("ok", 0) + 1
            ok = msg.get("ok")
            if isinstance(ok, dict):
                self.learn(body.get("op"), ok)

    def learn(self, op, ok):
        w = self.world
        if op == "messages.send" and isinstance(ok.get("message_id"), int) and len(w.messages) < 500:
            w.messages.append(ok["message_id"])
        if op == "groups.create" and isinstance(ok.get("conversation"), dict) and len(w.conversations) < 200:
            w.conversations.append(ok["conversation"].get("conversation_id"))
        if op == "call.invite" and isinstance(ok.get("call_id"), str) and len(w.calls) < 200:
            w.calls.append(ok["call_id"])

    def finding(self, what, body):
        text = json.dumps(body)[:600] if not isinstance(body, str) else body[:600]
        self.findings.append(f"{what}: {text}")
        print(f"FINDING: {what}\n  request: {text}", flush=True)

    def healthy(self):
        if self.args.server_pid:
            try:
                os.kill(self.args.server_pid, 0)
            except OSError:
                return False
        base = self.args.url.replace("ws://", "http://").rsplit("/", 1)[0]
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=5) as r:
                return r.status == 200
        except Exception:
            return False

    async def run(self):
        await self.setup()
        self.deadline = time.monotonic() + self.args.seconds

        async def watchdog():
            while time.monotonic() < self.deadline:
                await asyncio.sleep(1)
                if not await asyncio.to_thread(self.healthy):
                    self.finding("the server stopped answering /healthz (or its process is gone)", {})
                    self.deadline = 0
        await asyncio.gather(watchdog(), *(self.worker(k) for k in range(self.args.connections)))
        if not self.healthy():
            self.finding("the server is not healthy after the run", {})


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", required=True)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--connections", type=int, default=4)
    p.add_argument("--window", type=int, default=8, help="requests in flight per connection")
    p.add_argument("--reply-timeout", type=float, default=15)
    p.add_argument("--server-pid", type=int, default=0)
    p.add_argument("--admin-command", default="",
                   help="a shell command making the user with phone {phone} an administrator (seeds communities)")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fuzzer = Fuzzer(args, random.Random(seed), documented_error_codes(root))
    print(f"ops fuzz: seed {seed}, {args.seconds:g} s, {args.connections} connections", flush=True)
    started = time.monotonic()
    asyncio.run(fuzzer.run())
    codes = ", ".join(f"{c} {n}" for c, n in sorted(fuzzer.by_code.items(), key=lambda x: -x[1]))
    print(f"ops fuzz: {fuzzer.sent} requests over {len(fuzzer.by_op)} ops in {time.monotonic() - started:.0f} s, "
          f"{fuzzer.replies} replies ({codes}); {len(fuzzer.findings)} findings; seed {seed}")
    sys.exit(1 if fuzzer.findings else 0)


if __name__ == "__main__":
    main()
