#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Moments across a cluster: two server processes (127.0.0.1 and 127.0.0.2) sharing one PostgreSQL and one Redis,
driven by an independent client (Python websockets + http.client), with the harness of test_cluster.py.

A photo uploaded over HTTP to node 1 becomes a moment on node 1; a friend connected to node 2 gets `moment.created`
(a stranger on node 2 does not), reads the photo from node 2 (the stranger gets 404), likes it on node 2 (the owner
on node 1 gets `moment.liked`), and gets `moment.deleted` when the owner deletes it on node 1; an avatar set on node 1
reaches the friend on node 2 as `profile.updated`.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/cluster/test_moments.py

Prints one line per test and a closing "N passed, N failed"; exits 1 when a test failed.
"""

import asyncio
import http.client
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cluster as harness  # noqa: E402
from test_cluster import Client, befriend  # noqa: E402

NODES = None


async def user(url, name):
    c = Client(url, name)
    await c.connect()
    phone = "+1555" + str(random.randint(1000000, 9999999))
    r = await c.ok("register", phone=phone, password="correct horse battery staple", display_name=name, device=name)
    c.phone, c.token, c.user_id = phone, r["session_token"], r["user_id"]
    return c


def request(node, method, path, token, body=None):
    conn = http.client.HTTPConnection(node.host, node.port, timeout=30)
    try:
        headers = {"Authorization": f"Bearer {token}"}
        if body is not None:
            headers["Content-Length"] = str(len(body))
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def jpeg(colour):
    path = os.path.join(harness.WORK, f"photo-{colour}-{random.randint(0, 1 << 30)}.jpg")
    subprocess.run(["vips", "black", path, "64", "48", "--bands", "3"], check=True, capture_output=True, timeout=30)
    with open(path, "rb") as f:
        return f.read()


def named(name, match=lambda e: True):
    return lambda e: e.get("ev") == name and match(e)


async def a_moment_on_node_1_reaches_a_friend_on_node_2_and_not_a_stranger():
    one, two = NODES
    ann = await user(one.url, "ann")
    bob = await user(two.url, "bob")
    cat = await user(two.url, "cat")
    await befriend(ann, bob)

    status, body = request(one, "POST", "/photos", ann.token, jpeg("black"))
    assert status == 201, (status, body)
    photo = json.loads(body)
    moment = (await ann.ok("moments.create", photo_ids=[photo["photo_id"]], caption="from node 1"))["moment"]
    assert moment["photos"][0]["width"] == 64 and moment["photos"][0]["height"] == 48, moment

    e = await bob.until(named("moment.created", lambda e: e["moment"]["moment_id"] == moment["moment_id"]), what="moment.created on node 2")
    assert e["moment"]["caption"] == "from node 1" and e["moment"]["owner"]["user_id"] == ann.user_id, e
    status, _ = request(two, "GET", f"/photos/{photo['photo_id']}?size=thumb", bob.token)
    assert status == 200, status
    status, _ = request(two, "GET", f"/photos/{photo['photo_id']}", cat.token)
    assert status == 404, status
    assert [m["moment_id"] for m in (await bob.ok("moments.feed"))["moments"]] == [moment["moment_id"]]
    assert (await cat.ok("moments.feed"))["moments"] == []

    liked = await bob.ok("moments.like", moment_id=moment["moment_id"])
    assert liked["like_count"] == 1, liked
    e = await ann.until(named("moment.liked", lambda e: e["moment_id"] == moment["moment_id"]), what="moment.liked on node 1")
    assert e["user"]["user_id"] == bob.user_id and e["like_count"] == 1 and e["liked"] is True, e

    await ann.ok("profile.avatar.set", photo_id=photo["photo_id"])
    e = await bob.until(named("profile.updated", lambda e: e["profile"]["user_id"] == ann.user_id and "avatar" in e["profile"]),
                        what="profile.updated on node 2")
    assert e["profile"]["avatar"]["photo_id"] == photo["photo_id"], e

    await ann.ok("moments.delete", moment_id=moment["moment_id"])
    await bob.until(named("moment.deleted", lambda e: e["moment_id"] == moment["moment_id"]), what="moment.deleted on node 2")
    await asyncio.sleep(0.5)
    assert not any(e.get("ev", "").startswith("moment.") for e in cat.events), cat.events
    for c in (ann, bob, cat):
        await c.close()


TESTS = [a_moment_on_node_1_reaches_a_friend_on_node_2_and_not_a_stranger]


def main():
    return harness.run_two_node_tests(TESTS, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
