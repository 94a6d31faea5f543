#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Community benchmark (issue 22): an event published to a community of --members members, --online of them
# connected, reaching every online member; communities.list and calendar.get (month) latencies, client- and
# server-side.
#
# Against $SWITCHBOARD_TEST_DATABASE_URL (scripts/test-postgres.sh), in a fresh database per run (dropped at the end
# unless --keep). The server is .build/release/switchboard if present, else .build/debug/switchboard, or
# $SWITCHBOARD_SERVER_BIN. Set-up:
#   - the administrator registers through the protocol and is made one in SQL (users.role);
#   - it creates --communities communities through the protocol (communities.create); the first is the measured one;
#   - the offline members (--members minus --online) are inserted with bulk SQL (users and community_members rows,
#     member_count raised to match); the online members are users inserted in SQL with sessions whose tokens this
#     script made (sessions.token_hash = SHA-256 of the token's 32 bytes), so no Argon2id hash is spent on them;
#   - the online members connect over --workers processes (bounded concurrency), authenticate with their token and
#     join the community through the protocol (communities.join).
# Measure: the administrator publishes --events events one at a time (events.create); for each, every online member's
# `community.notification` receipt is timed from the request's send (CLOCK_MONOTONIC, shared by the processes) and
# from its reply (0 for a member that had it before the reply came); the next publication starts when every online
# member has the previous one (or after --wait s).
# Then --query-clients extra connections of online members (each joined to the first five events) share --queries
# communities.list (first page) and --queries calendar.get (month) requests, each connection one request at a time,
# while nothing else runs; the server's own per-op histogram
# (/metrics, switchboard_request_duration_seconds{op}) gives the server-side p50/p99 (interpolated within the
# histogram's buckets: 5, 10, 25, 50 ms ...).
# Budget: publication -> every online member p99 <= 3 s (target: under 200 ms); list and calendar month p99 under
# 10 ms server-side. Exit 0 when the 3 s budget is met and no notification was missing, 1 otherwise, 2 on set-up
# failures. Bounded: every wait has a deadline and the whole run --deadline seconds.
# Usage: loadtest/community-bench.py [--members 10000] [--online 2000] [--events 50] [--json FILE]
import argparse, asyncio, base64, hashlib, multiprocessing as mp, os, random, re, shutil
import subprocess, sys, tempfile, time
import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (Conn, Server, conninfo, prepare_run, run_bench, finish_run, histograms, make_token, pct, receiver_main, server_binary,  # noqa: E402
                      server_quantiles, sql, summary_ms, summary_row)


SERVER = server_binary(prefer_release=True)
PASSWORD = "bench mark community 99"




def wire(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000Z"


# --- the benchmark ---

async def main(a, say):
    base = os.environ["SWITCHBOARD_TEST_DATABASE_URL"]
    stamp = f"{os.getpid()}_{random.randrange(10**6)}"
    db = f"commbench_{stamp}"
    url = conninfo(base, db)
    work = tempfile.mkdtemp(prefix="commbench-")
    sql(base, f"CREATE DATABASE {db};")
    results = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "server": SERVER, "params": vars(a)}
    server, workers, stop = None, [], mp.Event()
    try:
        server = Server(url, work, extra=["--max-connections", "20000", *a.server_arg], binary=SERVER)
        admin = await Conn.open(server.ws, time.monotonic_ns)
        phone = "+1555%07d" % random.randrange(10**7)
        admin_id = (await admin.call("register", phone=phone, password=PASSWORD, display_name="Bench admin",
                                     device="bench"))["user_id"]
        sql(url, f"UPDATE users SET role = 'admin' WHERE id = {admin_id};")
        communities = []
        for i in range(a.communities):
            c = await admin.call("communities.create", name=f"Bench community {i:03d}", description="community-bench",
                                 category="bench")
            communities.append(c["community"]["community_id"])
        cid = communities[0]
        offline = a.members - a.online
        t0 = time.perf_counter()
        sql(url, f"""
INSERT INTO users (phone, password_hash, display_name)
SELECT '+1777' || lpad(g::text, 7, '0'), 'x', 'Offline member ' || g FROM generate_series(1, {offline}) g;
INSERT INTO community_members (community_id, user_id, read_seq)
SELECT {cid}, id, 0 FROM users WHERE phone LIKE '+1777%';
UPDATE communities SET member_count = member_count + {offline} WHERE id = {cid};
INSERT INTO users (phone, password_hash, display_name)
SELECT '+1778' || lpad(g::text, 7, '0'), 'x', 'Online member ' || g FROM generate_series(1, {a.online}) g;
""", timeout=600)
        online_ids = [int(x) for x in sql(url, "SELECT id FROM users WHERE phone LIKE '+1778%' ORDER BY id;").split()]
        tokens = [make_token() for _ in online_ids]
        sql(url, "INSERT INTO sessions (user_id, token_hash, device) VALUES "
            + ",".join(f"({u}, decode('{h}', 'hex'), 'community-bench')" for u, (_, h) in zip(online_ids, tokens)) + ";")
        results["setup_sql_seconds"] = round(time.perf_counter() - t0, 2)
        say(f"{a.communities} communities; {offline} offline members and {a.online} online users inserted "
            f"in {results['setup_sql_seconds']} s")

        # The online members connect and join, over the worker processes.
        t0 = time.perf_counter()
        ctx = mp.get_context("spawn")
        ready_q, result_q, counter = ctx.Queue(), ctx.Queue(), ctx.Value("q", 0)
        stop = ctx.Event()
        n = max(1, a.workers)
        for w in range(n):
            part = [t for t, _ in tokens[w::n]]
            p = ctx.Process(target=receiver_main, args=(
                server.ws, part, {"op": "communities.join", "community_id": cid}, "community.notification",
                ("notification", "title"), "cb.", a.connect_concurrency, ready_q, counter, stop, result_q), daemon=True)
            p.start()
            workers.append(p)
        connected = 0
        for _ in range(n):
            kind, value = await asyncio.to_thread(ready_q.get, True, a.connect_timeout)
            if kind != "ready":
                raise RuntimeError(f"a worker failed: {value}")
            connected += value
        results["connect_seconds"] = round(time.perf_counter() - t0, 2)
        count = int(sql(url, f"SELECT member_count FROM communities WHERE id = {cid};"))
        say(f"{connected} members online in {results['connect_seconds']} s; the community has {count} members")

        # Publications, one at a time.
        sends, replies, per_event_wait = {}, {}, []
        missing_rounds = 0
        for k in range(a.events):
            start = time.time() + 3600 + k * 60
            target = connected * (k + 1)
            sends[k] = time.monotonic_ns()
            t_reply, m = await asyncio.wait_for(
                admin.send("events.create", community_id=cid, title=f"cb.{k}", starts_at=wire(start),
                           ends_at=wire(start + 3600), time_zone="UTC", place="community-bench"), 30)
            if "ok" not in m:
                raise RuntimeError(f"events.create: {m}")
            replies[k] = t_reply
            deadline = time.perf_counter() + a.wait
            while counter.value < target and time.perf_counter() < deadline:
                await asyncio.sleep(0.002)
            if counter.value < target:
                missing_rounds += 1
            per_event_wait.append(time.monotonic_ns() - sends[k])
            await asyncio.sleep(a.gap)
        say(f"{a.events} events published")
        event_ids = []
        page = await admin.call("events.list", community_id=cid, limit=5)
        event_ids = [e["event_id"] for e in page["events"]]

        # Queries: list and calendar month, client- and server-side.
        query_conns = []
        for i in range(a.query_clients):
            c = await Conn.open(server.ws, time.monotonic_ns)
            await c.call("authenticate", token=tokens[i % len(tokens)][0])
            for e in event_ids:
                try:
                    await c.call("events.join", event_id=e)
                except RuntimeError as err:
                    if "already_joined" not in str(err):
                        raise
            query_conns.append(c)
        ops = ["communities.list", "calendar.get", "events.create"]
        before = histograms(server, ops)
        client_lat = {"communities.list": [], "calendar.get": []}

        async def ask(c, n):
            for j in range(n):
                for op, params in (("communities.list", {"limit": 20}), ("calendar.get", {"range": "month"})):
                    t = time.monotonic_ns()
                    await c.call(op, **params)
                    client_lat[op].append(time.monotonic_ns() - t)

        per_client = max(1, a.queries // max(1, len(query_conns)))
        await asyncio.gather(*(ask(c, per_client) for c in query_conns))
        after = histograms(server, ops)
        for c in query_conns:
            await c.close()
        say(f"{per_client * len(query_conns)} communities.list and calendar.get requests")

        # Results from the workers.
        stop.set()
        receipts = []
        errors = []
        for _ in workers:
            r = await asyncio.to_thread(result_q.get, True, 60)
            receipts += r["receipts"]
            errors += r["errors"]
        from_send, from_reply, last_by_event = [], [], {}
        got = {}
        for k, t in receipts:
            if k not in sends:
                continue
            got[k] = got.get(k, 0) + 1
            from_send.append(t - sends[k])
            from_reply.append(max(0, t - replies[k]))
            last_by_event[k] = max(last_by_event.get(k, 0), t - sends[k])
        missing = sum(connected - got.get(k, 0) for k in sends)
        results.update({
            "members": count, "online": connected, "events": a.events,
            "publication_to_member": summary_ms(from_send),
            "reply_to_member": summary_ms(from_reply),
            "publication_to_last_member": summary_ms(list(last_by_event.values())),
            "events_create_reply": summary_ms([replies[k] - sends[k] for k in sends]),
            "notifications_missing": missing, "rounds_incomplete": missing_rounds, "worker_errors": errors[:5],
            "communities_list_client": summary_ms(client_lat["communities.list"]),
            "calendar_month_client": summary_ms(client_lat["calendar.get"]),
            "communities_list_server": server_quantiles(before["communities.list"], after["communities.list"]),
            "calendar_month_server": server_quantiles(before["calendar.get"], after["calendar.get"]),
            "events_create_server_all": server_quantiles([], after["events.create"]),
        })
        p99 = results["publication_to_member"].get("p99_ms")
        results["budget_3s"] = "PASS" if p99 is not None and p99 <= 3000 and missing == 0 else "FAIL"
        results["target_200ms"] = "met" if p99 is not None and p99 <= 200 else "not met"
        await admin.close()
        return results
    finally:
        finish_run(stop, workers, server, a.keep, base, db, work)


def table(r):
    def row(name, s):
        return summary_row(name, s, 36)
    print(f"\ncommunity of {r['members']:,} members, {r['online']:,} online; {r['events']} events published one at a time")
    for name, key in (("publication -> each online member", "publication_to_member"),
                      ("publication -> last online member", "publication_to_last_member"),
                      ("events.create reply -> each member", "reply_to_member"),
                      ("events.create reply (client)", "events_create_reply"),
                      ("communities.list (client)", "communities_list_client"),
                      ("communities.list (server)", "communities_list_server"),
                      ("calendar.get month (client)", "calendar_month_client"),
                      ("calendar.get month (server)", "calendar_month_server")):
        print(row(name, r[key]))
    print(f"notifications missing: {r['notifications_missing']}; budget 3 s: {r['budget_3s']}; target p99 200 ms: "
          f"{r['target_200ms']}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description="Community benchmark (issue 22); see the header of this file.")
    p.add_argument("--members", type=int, default=10_000, help="members of the measured community")
    p.add_argument("--online", type=int, default=2_000, help="members connected (at most ~19,000: one fd each)")
    p.add_argument("--events", type=int, default=50, help="events published, one at a time")
    p.add_argument("--communities", type=int, default=50, help="communities in all (the list's content)")
    p.add_argument("--workers", type=int, default=4, help="processes holding the online members' connections")
    p.add_argument("--connect-concurrency", type=int, default=100, help="connections opened at once per worker")
    p.add_argument("--connect-timeout", type=float, default=300, help="longest wait for the members to connect")
    p.add_argument("--wait", type=float, default=10, help="longest wait for one publication to reach every member")
    p.add_argument("--gap", type=float, default=0.2, help="seconds between publications")
    p.add_argument("--query-clients", type=int, default=4, help="connections running list/calendar requests, each one request at a time")
    p.add_argument("--queries", type=int, default=2_000, help="communities.list and calendar.get requests of each")
    p.add_argument("--server-arg", action="append", default=[], help="an extra serve argument (repeatable)")
    p.add_argument("--deadline", type=float, default=900, help="the whole run, seconds")
    p.add_argument("--keep", action="store_true", help="keep the database and the work folder")
    p.add_argument("--json", help="write the results here")
    a = p.parse_args()
    if not (1 <= a.online <= a.members) or a.events < 1:
        sys.exit("need 1 <= --online <= --members and --events >= 1")
    hard = prepare_run(SERVER)
    if a.online + a.query_clients + 200 > hard:
        sys.exit(f"--online {a.online} needs more file descriptors than the limit {hard}")
    run_bench("community-bench", main, a, table, lambda res: res["budget_3s"] == "PASS")
