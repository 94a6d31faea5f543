#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Live pages across a cluster: two server processes (127.0.0.1 and 127.0.0.2) sharing one PostgreSQL and one
Redis, driven by an independent client (Python websockets), with the harness of test_cluster.py.

A post on node 1 reaches a home subscriber on node 2 (each social change crosses the bus once, every node routes it
to its own connections); a like on node 2 reaches the author's notifications on node 1; a subscriber whose
connection dropped resubscribes on the other node with `since` and gets exactly what it missed.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/cluster/test_social_live.py

Prints one line per test and a closing "N passed, N failed"; exits 1 when a test failed.
"""

import asyncio
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cluster as harness  # noqa: E402
from test_cluster import Client  # noqa: E402

NODES = None


async def social_user(url, name):
    c = Client(url, name)
    await c.connect()
    phone = "+1555" + str(random.randint(1000000, 9999999))
    handle = f"{name}_{random.randint(0, 1 << 30)}"
    r = await c.ok("register", phone=phone, password="correct horse battery staple", display_name=name, device=name, handle=handle)
    c.phone, c.token, c.user_id = phone, r["session_token"], r["user_id"]
    return c


def post_new(post_id):
    return lambda e: e.get("ev") == "post.new" and e["post"]["post_id"] == post_id


async def a_post_on_one_node_reaches_home_subscribers_on_the_other_and_a_resume_gets_what_it_missed():
    one, two = NODES[0].url, NODES[1].url
    ann = await social_user(one, "ann")
    bob = await social_user(two, "bob")
    await bob.ok("follow", user_id=ann.user_id)
    sub = await bob.ok("live.subscribe", streams=["home"])
    assert sub["subscribed"] == ["home"], sub
    await ann.ok("live.subscribe", streams=["notifications"])

    # Node 1 -> node 2: post.new on bob's home, once.
    first = (await ann.ok("post.create", text="hello from node 1"))["post"]
    e = await bob.until(post_new(first["post_id"]), what="post.new on node 2")
    assert e["post"]["author"]["user_id"] == ann.user_id and e["post"]["text"] == "hello from node 1", e
    # Node 2 -> node 1: bob's like notifies ann; its counts reach bob's home.
    await bob.ok("post.like", post_id=first["post_id"])
    n = await ann.until(lambda e: e.get("ev") == "notification" and e["notification"]["kind"] == "like", what="notification on node 1")
    assert n["notification"]["actor"]["user_id"] == bob.user_id and n["notification"]["post_id"] == first["post_id"], n
    await bob.until(lambda e: e.get("ev") == "post.counts" and e["post_id"] == first["post_id"] and e["like_count"] == 1,
                    what="post.counts on node 2")
    await asyncio.sleep(0.3)
    assert len([e for e in bob.events if post_new(first["post_id"])(e)]) == 1, bob.events

    # Bob's connection drops; ann posts twice and deletes her first post meanwhile.
    seen = max(first["seq"], sub["seq"])
    await bob.close()
    missed = [(await ann.ok("post.create", text=f"missed {i}"))["post"] for i in range(2)]
    await ann.ok("post.delete", post_id=first["post_id"])

    # Bob comes back on node 1 and resubscribes from what it saw: the missed posts, oldest first, and the deletion.
    back = Client(one, "bob-back")
    await back.connect()
    await back.authenticate(bob.token)
    resumed = await back.ok("live.subscribe", streams=["home"], since=seen)
    assert not resumed["resync_required"], resumed
    assert [p["post_id"] for p in resumed["posts"]] == [p["post_id"] for p in missed], resumed
    assert [d["post_id"] for d in resumed["deleted"]] == [first["post_id"]], resumed
    # And live again, from node 2 now.
    ann2 = Client(two, "ann-2")
    await ann2.connect()
    await ann2.authenticate(ann.token)
    after = (await ann2.ok("post.create", text="after the resume"))["post"]
    await back.until(post_new(after["post_id"]), what="post.new after the resume")
    await asyncio.sleep(0.3)
    assert not any(e.get("ev") == "post.new" and e["post"]["post_id"] in [p["post_id"] for p in missed] for e in back.events), back.events
    for c in (ann, ann2, back):
        await c.close()


TESTS = [a_post_on_one_node_reaches_home_subscribers_on_the_other_and_a_resume_gets_what_it_missed]


def main():
    return harness.run_two_node_tests(TESTS, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
