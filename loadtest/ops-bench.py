#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Operations benchmark (issue 21): backup and restore, account deletion, data export, retention sweep.
#
# Against $SWITCHBOARD_TEST_DATABASE_URL (scripts/test-postgres.sh), with a fresh database per run (dropped at
# the end unless --keep). The server is .build/debug/switchboard or $SWITCHBOARD_SERVER_BIN. The data set is
# built with bulk INSERTs straight into PostgreSQL (schema: Sources/SwitchboardCore/Schema.swift), around a few
# real users registered through the protocol (so they can log in):
#   S1     the "small client": sends --rate messages per second into a group and times each send to its ack
#   D1..   accounts deleted with `account.delete` (one per --delete-sizes entry, that many messages each)
#   E      requests `account.export` (--export-messages messages, --voice-clips voice clips)
# Phases: backup of a database of --small messages (no load), then of --messages messages while S1 sends
# (p99 send-to-ack before vs during), restore of the big backup into another fresh database, the export, the
# deletions (S1's p99 during each), and a retention sweep (server restarted with --retention-sweep-interval 5)
# over old call records, revoked sessions and tombstones (--retention-rows of each; rows per second from the
# first metrics poll that shows removals to the one that shows all, so the first batch is not in the time).
# Bounded: every wait has a deadline and the whole run --deadline seconds (360).
# Usage: loadtest/ops-bench.py [--messages 200000] [--small 50000] [--json FILE]
import argparse, asyncio, json, os, random, re, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Conn, Server as BenchServer, conninfo, pct, server_binary, sql  # noqa: E402

SERVER = server_binary()
PASSWORD = "bench mark 99"


def dir_size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


class Server(BenchServer):
    def __init__(self, url, work, extra=()):
        super().__init__(url, work, extra, binary=SERVER, log_level="notice")

    def metrics(self):
        out = {}
        for line in self.metrics_text(timeout=5).splitlines():
            m = re.match(r"(switchboard_retention_\w+)(\{[^}]*\})?\s+([0-9.eE+-]+)$", line)
            if m:
                out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
        return out


class Ticker:
    """S1 sends `rate` messages per second into one group; records (send time, send-to-ack seconds)."""

    def __init__(self, conn, conversation_id, rate):
        self.conn, self.cid, self.rate = conn, conversation_id, rate
        self.samples, self.failed, self.task, self.n = [], 0, None, 0

    async def _one(self, t):
        self.n += 1
        try:
            t_ack, m = await asyncio.wait_for(self.conn.send("messages.send", conversation_id=self.cid,
                                                             text=f"tick {self.n}"), 30)
            if "ok" in m:
                self.samples.append((t, t_ack - t))
            else:
                self.failed += 1
        except asyncio.TimeoutError:
            self.failed += 1

    async def _run(self):
        pending = set()
        nxt = time.perf_counter()
        while True:
            nxt += 1 / self.rate
            await asyncio.sleep(max(0, nxt - time.perf_counter()))
            task = asyncio.ensure_future(self._one(time.perf_counter()))
            pending.add(task)
            task.add_done_callback(pending.discard)

    def start(self):
        self.task = asyncio.ensure_future(self._run())

    def window(self, t0, t1):
        lat = [l for t, l in self.samples if t0 <= t < t1]
        return {"sends": len(lat), "p50_ms": round(pct(lat, 0.5) * 1000, 1) if lat else None,
                "p99_ms": round(pct(lat, 0.99) * 1000, 1) if lat else None,
                "max_ms": round(max(lat) * 1000, 1) if lat else None}


# --- the data set ---

def make_group(url, name, members):
    cid = sql(url, f"INSERT INTO conversations (kind, name, created_by) VALUES ('group', '{name}', {members[0]}) RETURNING id;")
    cid = int(cid.splitlines()[0])
    sql(url, "INSERT INTO members (conversation_id, user_id, joined_seq) VALUES "
        + ",".join(f"({cid},{u},0)" for u in members) + ";")
    return cid


def add_messages(url, conv_ids, per_conv, sender="c.created_by"):
    """per_conv text messages in each conversation, after its last seq, from `sender` (an SQL expression)."""
    ids = ",".join(map(str, conv_ids))
    sql(url, f"""
INSERT INTO messages (conversation_id, seq, sender_id, kind, body, client_id, created_at)
SELECT c.id, c.last_seq + s.n, {sender}, 'text', 'bench message ' || s.n || ' ' || md5(random()::text),
       'b' || c.id || '-' || (c.last_seq + s.n), now() - interval '2 days' + s.n * interval '1 ms'
FROM conversations c CROSS JOIN generate_series(1, {per_conv}) s(n) WHERE c.id IN ({ids});
UPDATE conversations c SET last_seq = (SELECT max(seq) FROM messages m WHERE m.conversation_id = c.id),
       last_activity_at = now() WHERE c.id IN ({ids});
""", timeout=600)


def add_fillers(url, n_messages, n_groups, tag):
    """n_groups groups of two filler users (stub accounts, no login) with n_messages messages in all."""
    sql(url, f"""
INSERT INTO users (phone, password_hash, display_name)
SELECT '+1999{tag}' || lpad(g::text, 6, '0'), 'x', 'Filler {tag}-' || g FROM generate_series(1, {2 * n_groups}) g;
""")
    users = [int(x) for x in sql(url, f"SELECT id FROM users WHERE phone LIKE '+1999{tag}%' ORDER BY id;").split()]
    groups = [make_group(url, f"filler {tag}-{i}", users[2 * i:2 * i + 2]) for i in range(n_groups)]
    add_messages(url, groups, n_messages // n_groups)
    return users, groups


def count_messages(url):
    return int(sql(url, "SELECT count(*) FROM messages;"))


async def run_backup(url, work, name):
    dest = os.path.join(work, name)
    t = time.perf_counter()
    r = await asyncio.to_thread(subprocess.run, [SERVER, "backup", "--to", dest, "--database-url", url],
                                capture_output=True, text=True, timeout=300)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"backup failed: {r.stderr[-800:]}")
    return dest, dt, dir_size(dest)


async def main(a):
    base = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL")
    if not base:
        sys.exit("SWITCHBOARD_TEST_DATABASE_URL is not set (eval \"$(scripts/test-postgres.sh start DIR)\")")
    if not os.access(SERVER, os.X_OK):
        sys.exit(f"no server binary at {SERVER} (swift build --product switchboard, or SWITCHBOARD_SERVER_BIN)")
    stamp = f"{os.getpid()}_{random.randrange(10**6)}"
    db, db_restore = f"opsbench_{stamp}", f"opsbench_restore_{stamp}"
    url, url_restore = conninfo(base, db), conninfo(base, db_restore)
    work = tempfile.mkdtemp(prefix="opsbench-")
    sql(base, f"CREATE DATABASE {db}; CREATE DATABASE {db_restore};")
    results = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "server": SERVER, "params": vars(a)}
    server = None
    t_run = time.perf_counter()

    def say(msg):
        print(f"[{time.perf_counter() - t_run:6.1f} s] {msg}", flush=True)

    try:
        # Real users, through the protocol (the server migrates the fresh database).
        server = Server(url, work)
        phones = {}
        names = ["S1", "S2", "E"] + [f"D{i + 1}" for i in range(len(a.delete_sizes))]
        ids = {}
        for n in names:
            phones[n] = "+1555%07d" % random.randrange(10**7)
            c = await Conn.open(server.ws)
            ids[n] = (await c.call("register", phone=phones[n], password=PASSWORD, display_name=f"Bench {n}",
                                   device="bench"))["user_id"]
            await c.close()
        server.stop()
        server = None
        say(f"registered {', '.join(names)}")

        # Backup of the small database (no load).
        add_fillers(url, a.small, 50, "a")
        n_small = count_messages(url)
        say(f"built {n_small} messages")
        _, t_b, size_b = await run_backup(url, work, "backup-small")
        results["backup_small"] = {"messages": n_small, "seconds": round(t_b, 2), "bytes": size_b}
        say(f"backup of {n_small} messages: {t_b:.2f} s, {size_b} bytes")

        # The big database: the deletion victims, the exporter, S1's group, fillers up to --messages.
        victim_groups = {}
        for i, size in enumerate(a.delete_sizes):
            d = ids[f"D{i + 1}"]
            gs = [make_group(url, f"D{i + 1} group {k}", [d, ids["S2"]]) for k in range(5)]
            add_messages(url, gs, size // 5, sender=str(d))
            victim_groups[d] = gs
        e = ids["E"]
        egs = [make_group(url, f"E group {k}", [e, ids["S2"]]) for k in range(4)]
        add_messages(url, egs, a.export_messages // 4, sender=str(e))
        sql(url, f"""
INSERT INTO voice_clips (uploader_id, sha256, audio, duration_ms, waveform, size)
SELECT {e}, sha256(a.audio), a.audio, 3000, decode(repeat('07', 100), 'hex'), length(a.audio)
FROM (SELECT k, (SELECT decode(string_agg(md5(random()::text || g || k), ''), 'hex')
                 FROM generate_series(1, {a.clip_bytes // 16}) g) AS audio
      FROM generate_series(1, {a.voice_clips}) k) a;
INSERT INTO messages (conversation_id, seq, sender_id, kind, voice_id)
SELECT {egs[0]}, (SELECT last_seq FROM conversations WHERE id = {egs[0]}) + row_number() OVER (ORDER BY v.id), {e},
       'voice', v.id FROM voice_clips v WHERE v.uploader_id = {e};
UPDATE conversations SET last_seq = (SELECT max(seq) FROM messages WHERE conversation_id = {egs[0]}) WHERE id = {egs[0]};
""")
        tick_group = make_group(url, "S1 ticks", [ids["S1"], ids["S2"]])
        rest = a.messages - count_messages(url)
        if rest > 0:
            add_fillers(url, rest, 100, "b")
        sql(url, "VACUUM ANALYZE;")
        n_big = count_messages(url)
        say(f"built {n_big} messages")

        server = Server(url, work)
        s1 = await Conn.open(server.ws)
        await s1.call("login", phone=phones["S1"], password=PASSWORD, device="bench")
        ticker = Ticker(s1, tick_group, a.rate)
        ticker.start()
        await asyncio.sleep(a.baseline)
        t0 = time.perf_counter()
        await asyncio.sleep(a.baseline)
        t1 = time.perf_counter()
        results["send_ack_idle"] = ticker.window(t0, t1)
        say(f"S1 send-to-ack, idle: {results['send_ack_idle']}")

        # Backup of the big database while S1 sends.
        tb0 = time.perf_counter()
        dest, t_b, size_b = await run_backup(url, work, "backup-big")
        tb1 = time.perf_counter()
        results["backup_big"] = {"messages": n_big, "seconds": round(t_b, 2), "bytes": size_b,
                                 "send_ack_during": ticker.window(tb0, tb1)}
        say(f"backup of {n_big} messages: {t_b:.2f} s, {size_b} bytes; S1 during: {results['backup_big']['send_ack_during']}")

        # Restore it into the other fresh database (S1 keeps sending to the live one).
        t = time.perf_counter()
        r = await asyncio.to_thread(subprocess.run, [SERVER, "restore", "--from", dest, "--database-url", url_restore],
                                    capture_output=True, text=True, timeout=300)
        t_r = time.perf_counter() - t
        if r.returncode != 0:
            raise RuntimeError(f"restore failed: {r.stderr[-800:]}")
        results["restore"] = {"messages": n_big, "seconds": round(t_r, 2),
                              "restored_messages": count_messages(url_restore)}
        say(f"restore: {t_r:.2f} s")

        # Export.
        ce = await Conn.open(server.ws)
        await ce.call("login", phone=phones["E"], password=PASSWORD, device="bench")
        tx0 = time.perf_counter()
        req = await ce.call("account.export")
        ready = await ce.event("account.export_ready", a.wait)
        tx1 = time.perf_counter()
        exp = ready.get("export") or ready.get("data", {}).get("export") or {}
        results["export"] = {"messages": a.export_messages, "voice_clips": a.voice_clips,
                             "seconds": round(tx1 - tx0, 2), "state": exp.get("state"), "bytes": exp.get("size"),
                             "send_ack_during": ticker.window(tx0, tx1), "export_id": req["export"]["export_id"]}
        await ce.close()
        say(f"export: {results['export']}")

        # Deletions.
        results["deletion"] = []
        for i, size in enumerate(a.delete_sizes):
            d = ids[f"D{i + 1}"]
            cd = await Conn.open(server.ws)
            await cd.call("login", phone=phones[f"D{i + 1}"], password=PASSWORD, device="bench")
            td0 = time.perf_counter()
            await cd.call("account.delete", password=PASSWORD)
            t_reply_wall, td_reply = time.time(), time.perf_counter()
            finished = None
            while time.perf_counter() - td_reply < a.wait:
                row = await asyncio.to_thread(sql, url, f"SELECT extract(epoch FROM finished_at), step FROM account_deletions WHERE user_id = {d} AND finished_at IS NOT NULL;")
                if row:
                    finished = float(row.split("|")[0])
                    break
                await asyncio.sleep(0.2)
            td1 = time.perf_counter()
            if finished is None:
                raise RuntimeError(f"deletion of D{i + 1} not finished in {a.wait} s")
            tomb = int(sql(url, f"SELECT count(*) FROM messages WHERE sender_id = {d} AND body IS NULL;"))
            results["deletion"].append({"messages": size, "tombstoned": tomb,
                                        "reply_ms": round((td_reply - td0) * 1000, 1),
                                        "seconds": round(finished - t_reply_wall, 2),
                                        "send_ack_during": ticker.window(td_reply, td1)})
            try:
                await cd.close()
            except Exception:
                pass
            say(f"deletion of {size} messages: {results['deletion'][-1]}")

        t2 = time.perf_counter()
        await asyncio.sleep(a.baseline)
        results["send_ack_after"] = ticker.window(t2, time.perf_counter())
        ticker.task.cancel()
        results["send_failed"] = ticker.failed
        await s1.close()
        server.stop()
        server = None

        # Retention sweep: old call records, old revoked sessions, old tombstones (with reactions).
        n = a.retention_rows
        fill = [int(x) for x in sql(url, "SELECT id FROM users WHERE phone LIKE '+1999b%' ORDER BY id LIMIT 2;").split()]
        sql(url, f"""
INSERT INTO calls (id, caller_id, callee_id, media, outcome, reason, started_at, ended_at)
SELECT 'bench-' || g, {fill[0]}, {fill[1]}, 'voice', 'missed', 'timeout', now() - interval '400 days',
       now() - interval '400 days' FROM generate_series(1, {n}) g;
INSERT INTO sessions (user_id, token_hash, device, created_at, revoked_at)
SELECT {fill[0]}, decode(md5('bench-revoked-' || g), 'hex'), 'old', now() - interval '50 days', now() - interval '40 days'
FROM generate_series(1, {n}) g;
WITH t AS (UPDATE messages SET deleted_at = now() - interval '40 days', body = NULL
           WHERE id IN (SELECT id FROM messages WHERE kind = 'text' AND sender_id IN
                        (SELECT id FROM users WHERE phone LIKE '+1999b%') ORDER BY id LIMIT {n}) RETURNING id)
INSERT INTO message_reactions (message_id, user_id, emoji) SELECT id, {fill[1]}, '👍' FROM t;
""")
        n_tomb = int(sql(url, "SELECT count(*) FROM messages WHERE deleted_at < now() - interval '31 days';"))
        server = Server(url, work, ["--retention-sweep-interval", "5", "--retention-batch-size", str(a.retention_batch)])
        want = {'switchboard_retention_rows_removed_total{kind="call_records"}': n,
                'switchboard_retention_rows_removed_total{kind="revoked_sessions"}': n,
                "switchboard_retention_tombstones_purged_total": n_tomb}
        t_first = t_done = None
        m, last, t_change = {}, None, time.perf_counter()
        end = time.perf_counter() + a.wait + 10
        while time.perf_counter() < end:
            m = server.metrics()
            now = time.perf_counter()
            if t_first is None and any(m.get(k, 0) > 0 for k in want):
                t_first = now
            if all(m.get(k, 0) >= v for k, v in want.items()):
                t_done = now
                break
            if m != last:
                last, t_change = m, now
            elif t_first is not None and now - t_change > 10:
                break  # nothing moved for 10 s: the sweep ended short of what was planted
            await asyncio.sleep(0.1)
        removed = sum(v for k, v in m.items() if k.startswith("switchboard_retention_rows_removed_total"))
        purged = m.get("switchboard_retention_tombstones_purged_total", 0)
        secs = (t_done - t_first) if t_done and t_first else None
        results["retention"] = {"call_records": n, "revoked_sessions": n, "tombstones": n_tomb,
                                "rows_removed": int(removed), "tombstones_purged": int(purged),
                                "seconds": round(secs, 2) if secs else None, "finished": t_done is not None,
                                "rows_per_s": round((removed + purged) / secs) if secs else None}
        say(f"retention: {results['retention']}")
        server.stop()
        server = None
    finally:
        if server:
            server.stop()
        if not a.keep:
            try:
                sql(base, f"DROP DATABASE IF EXISTS {db}; DROP DATABASE IF EXISTS {db_restore};")
            except Exception as e:
                print(f"could not drop the databases: {e}", file=sys.stderr)
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept: databases {db}, {db_restore}; folder {work}")
    results["total_seconds"] = round(time.perf_counter() - t_run, 1)
    return results


def table(r):
    def ms(w):
        return f"p50 {w['p50_ms']} / p99 {w['p99_ms']} / max {w['max_ms']} ms ({w['sends']} sends)" if w and w["sends"] else "-"
    rows = [
        ("backup (no load)", f"{r['backup_small']['messages']:,} msgs", f"{r['backup_small']['seconds']} s",
         f"{r['backup_small']['bytes'] / 1e6:.1f} MB", "-"),
        ("backup (S1 sending)", f"{r['backup_big']['messages']:,} msgs", f"{r['backup_big']['seconds']} s",
         f"{r['backup_big']['bytes'] / 1e6:.1f} MB", ms(r["backup_big"]["send_ack_during"])),
        ("restore", f"{r['restore']['messages']:,} msgs", f"{r['restore']['seconds']} s", "-", "-"),
        ("export", f"{r['export']['messages']:,} msgs + {r['export']['voice_clips']} clips", f"{r['export']['seconds']} s",
         f"{(r['export']['bytes'] or 0) / 1e6:.2f} MB", ms(r["export"]["send_ack_during"])),
    ]
    for d in r["deletion"]:
        rows.append(("account deletion", f"{d['messages']:,} msgs", f"{d['seconds']} s", "-", ms(d["send_ack_during"])))
    rt = r["retention"]
    rows.append(("retention sweep", f"{rt['rows_removed'] + rt['tombstones_purged']:,} rows", f"{rt['seconds']} s",
                 f"{rt['rows_per_s']} rows/s", "-"))
    print(f"\nS1 send-to-ack idle: {ms(r['send_ack_idle'])}; after: {ms(r['send_ack_after'])}; failed sends: {r['send_failed']}")
    print(f"{'phase':22} {'size':26} {'time':10} {'output':14} S1 send-to-ack during")
    for row in rows:
        print(f"{row[0]:22} {row[1]:26} {row[2]:10} {row[3]:14} {row[4]}")
    print(f"total {r['total_seconds']} s")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--messages", type=int, default=200_000, help="messages in the big database")
    p.add_argument("--small", type=int, default=50_000, help="messages in the small database (backup scaling)")
    p.add_argument("--delete-sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10_000, 50_000])
    p.add_argument("--export-messages", type=int, default=10_000)
    p.add_argument("--voice-clips", type=int, default=5)
    p.add_argument("--clip-bytes", type=int, default=20_000)
    p.add_argument("--retention-rows", type=int, default=20_000, help="rows of each kind for the retention sweep")
    p.add_argument("--retention-batch", type=int, default=500)
    p.add_argument("--rate", type=float, default=100, help="S1's sends per second")
    p.add_argument("--baseline", type=float, default=5, help="seconds of idle sending measured")
    p.add_argument("--wait", type=float, default=120, help="longest wait for one export, deletion or sweep")
    p.add_argument("--deadline", type=float, default=360, help="the whole run, seconds")
    p.add_argument("--keep", action="store_true", help="keep the databases and the work folder")
    p.add_argument("--json", help="write the results here")
    a = p.parse_args()
    res = asyncio.run(asyncio.wait_for(main(a), a.deadline))
    table(res)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
