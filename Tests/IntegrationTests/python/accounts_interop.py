#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# An independent client (Python `websockets`) registers two users, logs in and befriends over protocol v1.
# Usage: accounts_interop.py ws://127.0.0.1:PORT/ws PHONE_A PHONE_B
import asyncio
import json
import sys

import websockets


class Client:
    def __init__(self, ws):
        self.ws, self.next_id, self.events = ws, 1, []

    async def call(self, op, **params):
        rid = self.next_id
        self.next_id += 1
        await self.ws.send(json.dumps({"id": rid, "op": op, **params}))
        while True:
            msg = json.loads(await self.ws.recv())
            if msg.get("re") == rid:
                if "error" in msg:
                    raise SystemExit(f"{op} failed: {msg['error']}")
                return msg["ok"]
            self.events.append(msg)

    async def event(self, name):
        for i, e in enumerate(self.events):
            if e.get("ev") == name:
                return self.events.pop(i)
        while True:
            msg = json.loads(await self.ws.recv())
            if msg.get("ev") == name:
                return msg
            self.events.append(msg)


async def main(url, phone_a, phone_b):
    sub = ["switchboard.v1"]
    async with websockets.connect(url, subprotocols=sub) as wa, websockets.connect(url, subprotocols=sub) as wb:
        a, b = Client(wa), Client(wb)
        ra = await a.call("register", phone=phone_a, password="python rocks 1", display_name="Py A", device="py")
        await b.call("register", phone=phone_b, password="python rolls 2", display_name="Py B", device="py")
        print("ok registered")
    async with websockets.connect(url, subprotocols=sub) as wa, websockets.connect(url, subprotocols=sub) as wb:
        a, b = Client(wa), Client(wb)
        await a.call("login", phone=phone_a, password="python rocks 1", device="py2")
        await b.call("login", phone=phone_b, password="python rolls 2", device="py2")
        print("ok logged in")
        req = await a.call("friends.request", phone=phone_b)
        ev = await b.event("friend.request.received")
        assert ev["request"]["request_id"] == req["request"]["request_id"], ev
        await b.call("friends.accept", request_id=req["request"]["request_id"])
        await a.event("friend.request.accepted")
        friends = await a.call("friends.list")
        assert [f["display_name"] for f in friends["friends"]] == ["Py B"], friends
        assert ra["user_id"] > 0
        print("ok befriended")

        # Messaging: B's Python client (with permessage-deflate, so it gets its own compressed frames) receives
        # A's messages live, then resumes after a reconnect with authenticate(resume) + sync pipelined.
        ack = await a.call("messages.send", user_id=ra_b_id(friends), text="hello from Python \u00e9\U0001F44D", client_id="py-1")
        ev = await b.event("message")
        assert ev["message"]["text"] == "hello from Python \u00e9\U0001F44D", ev
        assert ev["message"]["seq"] == ack["seq"] == 1, (ev, ack)
        again = await a.call("messages.send", conversation_id=ack["conversation_id"], text="hello from Python \u00e9\U0001F44D", client_id="py-1")
        assert again == ack, (again, ack)
        print("ok messages")
    async with websockets.connect(url, subprotocols=sub) as wa:
        a = Client(wa)
        await a.call("login", phone=phone_a, password="python rocks 1", device="py3")
        for i in range(2, 6):
            await a.call("messages.send", conversation_id=ack["conversation_id"], text=f"missed {i}", client_id=f"py-{i}")
        async with websockets.connect(url, subprotocols=sub) as wb:
            b = Client(wb)
            await b.call("login", phone=phone_b, password="python rolls 2", device="py4")
            synced = await b.call("sync", since={str(ack["conversation_id"]): 1})
            got = []
            while len(got) < 4:
                got.append((await b.event("message"))["message"])
            assert [m["seq"] for m in got] == [2, 3, 4, 5], got
            assert synced["messages"] == 4, synced
            history = await b.call("messages.history", conversation_id=ack["conversation_id"], limit=3)
            assert [m["seq"] for m in history["messages"]] == [5, 4, 3] and history["has_more"], history
        print("ok resumed")


def ra_b_id(friends):
    return friends["friends"][0]["user_id"]


asyncio.run(asyncio.wait_for(main(*sys.argv[1:4]), 60))
