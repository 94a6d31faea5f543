#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Fair admission benchmark (issue 37): does one client pipelining database-bound requests delay another?
#
# Against $SWITCHBOARD_TEST_DATABASE_URL (scripts/test-postgres.sh), with a fresh database per run (dropped at the
# end unless --keep). The server is .build/release/switchboard when built (else debug) or $SWITCHBOARD_SERVER_BIN,
# on 127.0.0.1 only. Two users are inserted with SQL, each with a session token.
#   1. alone: the measured client V connects, authenticates and sends --requests `sessions.list`, one at a time,
#      --gap-ms apart; each timed from its send to its reply.
#   2. with the hog: a separate process H (a raw WebSocket client, so that its own cost stays small) authenticates
#      and pipelines --hog-requests `sessions.list` without waiting for any reply (a reader thread only counts them).
#      Once H has --hog-warmup replies, a fresh V connects, authenticates and runs the same --requests; its first
#      request is reported on its own too. Then H's replies are awaited: every one must be an answer (`ok`).
# Reported: V's p50/p99/max alone and with the hog, H's answers and rate, the server's RSS before and after.
# Budgets (exit 1 when missed): V's max with the hog under --max-budget-ms (20), its p99 within --p99-slack-ms (2)
# of its p99 alone, and H's requests all answered. Bounded: --hog-requests, --requests and --deadline (300 s).
# Not part of the test command.
# Usage: loadtest/fair-bench.py [--hog-requests 100000] [--requests 100] [--json FILE] [--server-arg ARG]...
import argparse, asyncio, base64, json, multiprocessing as mp, os, random, socket, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (Conn, Server, conninfo, finish_run, make_token, prepare_run, run_bench, server_binary,  # noqa: E402
                      sql, summary_ms, summary_row)

SERVER = server_binary(prefer_release=True)


# --- the hog: a raw WebSocket client in its own process ---

def _frame(payload):
    """A masked client text frame (mask key 0: the payload goes as is; the server only unmasks)."""
    n = len(payload)
    if n < 126:
        head = bytes([0x81, 0x80 | n])
    elif n < 65536:
        head = bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


def _handshake(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: switchboard.v1\r\n"
               "\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(4096)
        if not chunk:
            raise RuntimeError("hog: closed during the handshake")
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"hog: handshake refused: {head[:80]!r}")
    s.settimeout(None)
    return s, bytearray(rest)


def _frames(s, buf):
    """Yields the payloads of the server's frames (text, binary, close) as they arrive."""
    while True:
        while True:
            if len(buf) >= 2:
                n, at = buf[1] & 0x7F, 2
                if n == 126 and len(buf) >= 4:
                    n, at = int.from_bytes(buf[2:4], "big"), 4
                elif n == 127 and len(buf) >= 10:
                    n, at = int.from_bytes(buf[2:10], "big"), 10
                if n < 126 or at > 2:
                    if len(buf) >= at + n:
                        opcode, payload = buf[0] & 0x0F, bytes(buf[at:at + n])
                        del buf[:at + n]
                        yield opcode, payload
                        continue
            break
        chunk = s.recv(1 << 20)
        if not chunk:
            return
        buf += chunk


def hog_main(port, token, count, wait, progress, result_q):
    """Authenticates, then pipelines `count` sessions.list requests; counts replies in `progress`; puts a summary."""
    try:
        s, buf = _handshake(port)
        s.sendall(_frame(json.dumps({"id": 0, "op": "authenticate", "token": token}).encode()))
        frames = _frames(s, buf)
        for opcode, payload in frames:
            if opcode == 1 and b'"re":0' in payload:
                if b'"ok"' not in payload:
                    raise RuntimeError(f"hog: authenticate: {payload[:200]!r}")
                break
        t0 = time.perf_counter()
        outcome = {"ok": 0, "errors": 0, "first_error": None, "closed": None}

        def reader():
            for opcode, payload in frames:
                if opcode == 8:
                    outcome["closed"] = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 0
                    return
                if opcode != 1 or b'"re"' not in payload:
                    continue
                if b'"ok"' in payload:
                    outcome["ok"] += 1
                else:
                    outcome["errors"] += 1
                    outcome["first_error"] = outcome["first_error"] or payload[:200].decode(errors="replace")
                with progress.get_lock():
                    progress.value += 1
                if outcome["ok"] + outcome["errors"] >= count:
                    return

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        batch = []
        for i in range(1, count + 1):
            batch.append(_frame(b'{"id":%d,"op":"sessions.list"}' % i))
            if len(batch) == 512:
                s.sendall(b"".join(batch))
                batch = []
        if batch:
            s.sendall(b"".join(batch))
        sent = time.perf_counter() - t0
        t.join(max(1, wait))
        outcome.update({"sent_seconds": round(sent, 2), "seconds": round(time.perf_counter() - t0, 2)})
        s.close()
        result_q.put(outcome)
    except Exception as e:  # noqa: BLE001 - reported to the main process
        result_q.put({"error": repr(e)})


# --- the measured client ---

async def measure(server, token, n, gap):
    """A fresh connection: authenticate, then `n` sessions.list one at a time; (latencies ns, first ns)."""
    c = await Conn.open(server.ws, time.monotonic_ns)
    try:
        await c.call("authenticate", token=token)
        lat = []
        for _ in range(n):
            t = time.monotonic_ns()
            t_reply, m = await asyncio.wait_for(c.send("sessions.list"), 30)
            if "ok" not in m:
                raise RuntimeError(f"sessions.list: {m}")
            lat.append(t_reply - t)
            await asyncio.sleep(gap)
        return lat
    finally:
        await c.close()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


async def main(a, say):
    base = os.environ["SWITCHBOARD_TEST_DATABASE_URL"]
    db = f"fairbench_{os.getpid()}_{random.randrange(10**6)}"
    url = conninfo(base, db)
    work = tempfile.mkdtemp(prefix="fairbench-")
    sql(base, f"CREATE DATABASE {db};")
    res = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "server": SERVER, "params": vars(a)}
    server, workers, stop = None, [], mp.Event()
    try:
        server = Server(url, work, extra=a.server_arg, binary=SERVER)
        sql(url, """
INSERT INTO users (phone, password_hash, display_name) VALUES ('+15550000001', 'x', 'Hog'), ('+15550000002', 'x', 'V');
""")
        ids = [int(x) for x in sql(url, "SELECT id FROM users WHERE phone LIKE '+1555000000%' ORDER BY phone;").split()]
        tokens = [make_token() for _ in ids]
        sql(url, "INSERT INTO sessions (user_id, token_hash, device) VALUES "
            + ",".join(f"({u}, decode('{h}', 'hex'), 'fair-bench')" for u, (_, h) in zip(ids, tokens)) + ";")
        hog_token, v_token = tokens[0][0], tokens[1][0]
        gap = a.gap_ms / 1000

        await measure(server, v_token, 20, 0)  # warm-up (connections, plans)
        alone = await measure(server, v_token, a.requests, gap)
        res["alone"] = summary_ms(alone)
        res["alone"]["first_ms"] = round(alone[0] / 1e6, 2)
        res["rss_before_kib"] = rss_kib(server.proc.pid)
        say(f"alone: {summary_row('V', res['alone'], 4)}")

        ctx = mp.get_context("spawn")
        progress, result_q = ctx.Value("q", 0), ctx.Queue()
        hog = ctx.Process(target=hog_main, args=(server.port, hog_token, a.hog_requests, a.deadline, progress,
                                                 result_q), daemon=True)
        hog.start()
        workers.append(hog)
        t0 = time.perf_counter()
        while progress.value < a.hog_warmup:
            if not hog.is_alive() or time.perf_counter() - t0 > 60:
                raise RuntimeError(f"the hog did not start ({progress.value} replies)")
            await asyncio.sleep(0.01)
        with_hog = await measure(server, v_token, a.requests, gap)
        res["hog_replies_when_done"] = progress.value
        res["with_hog"] = summary_ms(with_hog)
        res["with_hog"]["first_ms"] = round(with_hog[0] / 1e6, 2)
        say(f"with the hog: {summary_row('V', res['with_hog'], 4)} ({progress.value} hog replies by then)")
        if progress.value >= a.hog_requests:
            say("warning: the hog finished before the measured client: raise --hog-requests")
        hog_res = await asyncio.to_thread(result_q.get, True, a.deadline)
        res["hog"] = hog_res
        res["rss_after_kib"] = rss_kib(server.proc.pid)
        say(f"hog: {hog_res}")

        ok = hog_res.get("ok", 0)
        res["hog_rate_per_s"] = round(ok / hog_res["seconds"]) if hog_res.get("seconds") else None
        checks = {
            "max_under_budget": res["with_hog"]["max_ms"] < a.max_budget_ms,
            "p99_within_slack": res["with_hog"]["p99_ms"] <= res["alone"]["p99_ms"] + a.p99_slack_ms,
            "hog_all_answered": ok == a.hog_requests,
        }
        res["checks"] = checks
        res["pass"] = all(checks.values())
        return res
    finally:
        finish_run(stop, workers, server, a.keep, base, db, work)


def table(r):
    print(f"\nV: {r['params']['requests']} sessions.list one at a time; hog: {r['params']['hog_requests']:,} pipelined")
    for name, key in (("V alone", "alone"), ("V with the hog", "with_hog")):
        print(summary_row(name, r[key], 16) + f"  first {r[key]['first_ms']} ms")
    h = r["hog"]
    print(f"hog: {h.get('ok')} ok, {h.get('errors')} errors, closed {h.get('closed')}, all sent in {h.get('sent_seconds')} s, "
          f"answered in {h.get('seconds')} s ({r['hog_rate_per_s']}/s)")
    print(f"server RSS: {r['rss_before_kib'] / 1024:.1f} MiB before, {r['rss_after_kib'] / 1024:.1f} MiB after")
    print("checks: " + ", ".join(f"{k} {'PASS' if v else 'FAIL'}" for k, v in r["checks"].items()))


if __name__ == "__main__":
    p = argparse.ArgumentParser(description="Fair admission benchmark (issue 37); see the header of this file.")
    p.add_argument("--hog-requests", type=int, default=100_000, help="sessions.list the hog pipelines")
    p.add_argument("--hog-warmup", type=int, default=2_000, help="hog replies before the measured client starts")
    p.add_argument("--requests", type=int, default=100, help="the measured client's sessions.list, one at a time")
    p.add_argument("--gap-ms", type=float, default=5, help="pause between the measured client's requests")
    p.add_argument("--max-budget-ms", type=float, default=20, help="budget: the measured client's max with the hog")
    p.add_argument("--p99-slack-ms", type=float, default=2, help="budget: its p99 with the hog over its p99 alone")
    p.add_argument("--server-arg", action="append", default=[], help="an extra serve argument (repeatable)")
    p.add_argument("--deadline", type=float, default=300, help="the whole run, seconds")
    p.add_argument("--keep", action="store_true", help="keep the database and the work folder")
    p.add_argument("--json", help="write the results here")
    a = p.parse_args()
    if a.hog_requests < 1 or a.requests < 1 or a.hog_warmup >= a.hog_requests:
        sys.exit("need --hog-requests > --hog-warmup and --requests >= 1")
    prepare_run(SERVER)
    run_bench("fair-bench", main, a, table, lambda res: res["pass"])
