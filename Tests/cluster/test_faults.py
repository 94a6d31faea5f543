#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Cluster faults (issue 37): a node stopped (SIGSTOP) inside a commit, and Redis killed and restarted under load,
on two nodes sharing one PostgreSQL and one Redis (the harness of test_cluster.py; an independent Python client).

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/cluster/test_faults.py

Prints one line per test and "N passed, N failed"; exits 1 when a test failed.
"""

import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cluster as harness  # noqa: E402
from test_cluster import Client, befriend  # noqa: E402

NODES = None
REDIS = None


def psql_value(database_url, sql):
    """One value from the cluster's database (psql, unaligned)."""
    psql = shutil.which("psql") or next((os.path.join(d, "psql") for d in sorted(
        (os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql")), reverse=True)
        if os.path.exists(os.path.join(d, "psql"))), None)
    out = subprocess.run([psql, database_url, "-qAtc", sql], check=True, capture_output=True, timeout=30)
    return out.stdout.decode().strip()


def conversation_locks(database_url):
    """Transactions other than this one holding the conversations table's lock of `SELECT ... FOR UPDATE` (a
    commit's `lockHeads`): the stopped node's open commit."""
    return int(psql_value(database_url, """
        SELECT count(*) FROM pg_locks l JOIN pg_class r ON r.oid = l.relation
        WHERE r.relname = 'conversations' AND l.mode = 'RowShareLock' AND l.granted AND l.pid <> pg_backend_pid()"""))


async def a_node_stopped_inside_a_commit_holds_other_nodes_writes_at_most_the_lock_timeout():
    """Cat floods a conversation from node 2, which is stopped (SIGSTOP) until it is caught holding the
    conversation's lock inside a commit. Ann's send to that conversation on node 1 waits at most the lock timeout
    (`--db-lock-timeout`, 2 s) and is answered `unavailable` (without the timeout it would wait for node 2);
    PostgreSQL ends node 2's idle transaction after `--db-idle-in-transaction-timeout` (5 s), and Ann's resend with
    the same client id is stored. When node 2 runs again it closes Cat's connection (1012: paused past its TTL);
    after Cat resumes, both hold every acknowledged message once, and Ann received Cat's live."""
    args = NODES[0].proc.args
    database_url = args[args.index("--database-url") + 1]
    ann, cat = Client(NODES[0].url, "s-ann@1"), Client(NODES[1].url, "s-cat@2")
    for c in (ann, cat):
        await c.connect()
        await c.register(c.name)
    await befriend(ann, cat)
    conversation = (await ann.ok("conversations.direct", user_id=cat.user_id))["conversation"]["conversation_id"]
    acked = set()
    stopped = NODES[1]
    state = {"flooding": True, "k": 0}

    async def flood():
        while state["flooding"]:
            state["k"] += 1
            k = state["k"]
            try:
                r = await cat.call("messages.send", conversation_id=conversation, text=f"flood {k}", client_id=f"f{k}",
                                   timeout=60)
                if "ok" in r:
                    acked.add(r["ok"]["seq"])
            except Exception:  # the connection closed (1012) or the node is stopped: the flood is over
                return

    floods = [asyncio.create_task(flood()) for _ in range(8)]
    caught = False
    try:
        for attempt in range(40):
            await asyncio.sleep(random.uniform(0.05, 0.25))
            os.kill(stopped.proc.pid, signal.SIGSTOP)
            # Held twice in a row (a commit being finished by PostgreSQL alone would let go at once).
            if conversation_locks(database_url) > 0:
                time.sleep(0.3)
                if conversation_locks(database_url) > 0:
                    caught = True
                    break
            os.kill(stopped.proc.pid, signal.SIGCONT)
        assert caught, "node 2 was never caught inside a commit in 40 tries"
        started = time.monotonic()
        r = await ann.call("messages.send", conversation_id=conversation, text="while node 2 is stopped",
                           client_id="held-1")
        waited = time.monotonic() - started
        assert r.get("error", {}).get("code") == "unavailable", f"expected unavailable after the lock timeout: {r}"
        harness.wait_for(lambda: conversation_locks(database_url) == 0, 30,
                         "PostgreSQL ending the stopped node's idle transaction")
        ack = await ann.send(conversation, "while node 2 is stopped", client_id="held-1")
    finally:
        os.kill(stopped.proc.pid, signal.SIGCONT)
    print(f"    (node 2 caught inside a commit at try {attempt + 1}; Ann's write answered unavailable after {waited:.2f} s)", flush=True)
    state["flooding"] = False
    await cat.until(lambda e: cat.ws.close_code is not None, timeout=20, what="node 2 asks Cat to reconnect")
    assert cat.ws.close_code == 1012, f"closed with {cat.ws.close_code}"
    await asyncio.wait(floods, timeout=30)
    await cat.resume()
    top = max(acked | {ack["seq"]})
    await cat.until(lambda e: cat.contiguous(conversation) >= ack["seq"], what="Ann's message after the resume")
    await ann.until(lambda e: ann.contiguous(conversation) >= top, what=f"every message Cat had acknowledged (to {top})")
    for c in (ann, cat):
        got = [m["seq"] for m in c.messages(conversation)]
        assert len(got) == len(set(got)), f"{c.name}: duplicates {sorted(got)}"
    harness.wait_for(lambda: stopped.status("/readyz") == 200, 20, "node 2 ready again")
    for c in (ann, cat):
        await c.close()


async def redis_killed_and_restarted_under_load_loses_no_acknowledged_message_for_any_member():
    """Three pairs with one member on each node send to each other continuously; Redis is killed (SIGKILL) after
    1 s and started again, empty, 1.5 s later. Sends keep being answered (an acknowledgement waits for Redis's
    answer or its failure: acknowledged means stored); every client closed with 1012 resumes; at the end every
    member holds every acknowledged message of its conversation, each stored once."""
    pairs = []
    for i in range(3):
        a, b = Client(NODES[0].url, f"r{i}-a@1"), Client(NODES[1].url, f"r{i}-b@2")
        for c in (a, b):
            await c.connect()
            await c.register(c.name)
        await befriend(a, b)
        pairs.append((a, b, (await a.ok("conversations.direct", user_id=b.user_id))["conversation"]["conversation_id"]))
    acked = {cid: set() for _, _, cid in pairs}
    stop = time.monotonic() + 5
    codes = []

    async def sender(c, cid):
        k = 0
        while time.monotonic() < stop:
            k += 1
            for attempt in range(100):
                try:
                    r = await c.call("messages.send", conversation_id=cid, text=f"{c.name} {k}",
                                     client_id=f"{c.name}-{k}", timeout=10)
                    if "ok" in r:
                        acked[cid].add(r["ok"]["seq"])
                        c.seqs.setdefault(cid, []).append(r["ok"]["seq"])
                        break
                    codes.append(r["error"]["code"])  # unavailable while the database is busy: again
                    await asyncio.sleep(0.05)
                except (ConnectionError, asyncio.TimeoutError, AssertionError, websockets.ConnectionClosed):
                    if c.ws.close_code is not None:
                        codes.append(c.ws.close_code)
                    await asyncio.sleep(0.05)
                    try:
                        await c.resume()
                    except Exception:
                        pass
            await asyncio.sleep(0.02)

    async def outage():
        await asyncio.sleep(1)
        REDIS.kill()
        await asyncio.sleep(1.5)
        REDIS.start()

    await asyncio.gather(*([sender(a, cid) for a, _, cid in pairs] + [sender(b, cid) for _, b, cid in pairs]
                           + [outage()]))
    harness.wait_for(lambda: all(n.status("/readyz") == 200 for n in NODES), 30, "both nodes ready again")
    for a, b, cid in pairs:
        top = max(acked[cid])
        for c in (a, b):
            if c.ws.close_code is not None:
                await c.resume()
            await c.until(lambda e: c.contiguous(cid) >= top, what=f"{c.name}: every acknowledged seq up to {top}")
        # Stored once each: a resend after a lost acknowledgement found its message (same client id). (A client may
        # be given a message twice around a resume, live and by its `sync`; it drops the repeat by seq.)
        history, before = [], None
        while True:
            page = await a.ok("messages.history", conversation_id=cid, limit=100, **({"before": before} if before else {}))
            history += page["messages"]
            if not page["has_more"]:
                break
            before = min(m["seq"] for m in page["messages"])
        texts = [m.get("text") for m in history]
        assert len(texts) == len(set(texts)), f"a message stored twice in {cid}"
        assert acked[cid] <= {m["seq"] for m in history}, f"an acknowledged message of {cid} is not stored"
    print(f"    ({sum(len(v) for v in acked.values())} acknowledged; retried answers and closes: "
          f"{sorted(set(map(str, codes)))})", flush=True)
    for a, b, _ in pairs:
        await a.close()
        await b.close()


if __name__ == "__main__":
    sys.exit(harness.run_two_node_tests(
        [a_node_stopped_inside_a_commit_holds_other_nodes_writes_at_most_the_lock_timeout,
         redis_killed_and_restarted_under_load_loses_no_acknowledged_message_for_any_member], sys.modules[__name__]))
