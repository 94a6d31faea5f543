#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The soak (issue 37, item 7): a steady mixed load for a long time (two hours by default) with reconnects, and a table
# of the server's health every minute. Not part of the test command.
#
# Against $SWITCHBOARD_TEST_DATABASE_URL (scripts/test-postgres.sh), in a fresh database (dropped at the end unless
# --keep). The server is $SWITCHBOARD_SERVER_BIN, else .build/release/switchboard when built, else the debug build;
# the generator is $LOAD_BIN, else .build/release/switchboard-load, else the debug one. The load is one
# `switchboard-load run` for the whole duration: --users users each on one connection, one-to-one and group text,
# history, reactions, pins, typing, presence, logins, calls, voice uploads, posts, timelines, likes and follows at
# modest rates (the flags below), and every --drop-every seconds --drop-share of the clients dropped, reconnected
# with backoff and resumed. At the end the generator checks that every client has every message of each of its
# conversations exactly once and without a gap.
#
# Every --sample seconds (60) the soak records: the server's RSS (VmRSS) and heap in use (`switchboard_heap_bytes`,
# glibc mallinfo2), its open file descriptors (/proc/PID/fd), the database's size (pg_database_size), the requests
# answered in the minute and their server-side p50/p99 (the deltas of `switchboard_request_duration_seconds` over
# every op, interpolated in the buckets) and the same for `messages.send`.
#
# Judged (exit 0 when all hold, 1 when one does not, 2 on set-up failures):
#   - RSS and open descriptors flat: over the last --flat-window minutes (90 of a two-hour run; the last 3/4 of a
#     shorter one), max / min - 1 within 5% (descriptors: also within 5% or 20 descriptors, whichever is larger: the
#     dropped clients' sockets come and go);
#   - no p99 drift: the median of the per-minute p99s in the last 15 minutes (the last quarter of a shorter run) is
#     within 25% or 2 ms of the median over minutes 5-20 (the second quarter);
#   - nothing lost: the generator's verdict on delivery (no client other than the dropped ones incomplete, every
#     dropped client recovered) and no request errors.
# Bounded: the run ends after --duration plus set-up and drain (--deadline stops it regardless); the server and the
# generator are stopped by PID.
#
# Usage: loadtest/soak.py [--duration 7200] [--users 200] [--json FILE] [--table FILE]
import argparse, json, os, re, signal, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (ROOT, Server, conninfo, prepare_run, proc_kb, request_buckets, server_binary,  # noqa: E402
                      server_quantiles, sql)


def load_binary():
    if os.environ.get("LOAD_BIN"):
        return os.environ["LOAD_BIN"]
    release = os.path.join(ROOT, ".build/release/switchboard-load")
    return release if os.access(release, os.X_OK) else os.path.join(ROOT, ".build/debug/switchboard-load")


def all_ops_histogram(text, only=None):
    """[(le, cumulative count)] of switchboard_request_duration_seconds summed over ops (or one op)."""
    sums = {}
    for labels, le, count in request_buckets(text):
        if only is None or labels.get("op") == only:
            sums[le] = sums.get(le, 0.0) + count
    return sorted(sums.items())


def gauge(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def median(values):
    v = sorted(x for x in values if isinstance(x, (int, float)))
    return v[len(v) // 2] if v else None


def main():
    ap = argparse.ArgumentParser(description="A long steady mixed load with reconnects; the server's health every minute.")
    ap.add_argument("--duration", type=float, default=7200)
    ap.add_argument("--sample", type=float, default=60)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--direct-rate", type=float, default=20)
    ap.add_argument("--group-rate", type=float, default=5)
    ap.add_argument("--drop-share", type=float, default=0.05)
    ap.add_argument("--drop-every", type=float, default=300)
    ap.add_argument("--flat-window", type=float, default=None, help="minutes judged for flat RSS and descriptors")
    ap.add_argument("--server-args", default="", help="extra `serve` flags, space-separated")
    ap.add_argument("--json")
    ap.add_argument("--table", help="write the per-minute table (Markdown) here too")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--deadline", type=float, default=None)
    a = ap.parse_args()
    deadline = time.monotonic() + (a.deadline or a.duration + 900)

    server_bin = server_binary(prefer_release=True)
    load_bin = load_binary()
    prepare_run(server_bin)
    if not os.access(load_bin, os.X_OK):
        sys.exit(f"no generator at {load_bin} (swift build -c release --product switchboard-load, or LOAD_BIN)")
    base = os.environ["SWITCHBOARD_TEST_DATABASE_URL"]
    db = f"soak_{os.getpid()}"
    sql(base, f"CREATE DATABASE {db};")
    url = conninfo(base, db)
    work = tempfile.mkdtemp(prefix="switchboard-soak.")
    t0 = time.monotonic()

    def say(msg):
        print(f"[{time.monotonic() - t0:7.1f} s] {msg}", flush=True)

    server = Server(url, work, extra=["--ring-timeout", "5", *a.server_args.split()], binary=server_bin,
                    log_level="notice")
    pid = server.proc.pid
    say(f"server {server_bin} (pid {pid}) on {server.ws}; generator {load_bin}")
    report_path = os.path.join(work, "load.json")
    load_args = [load_bin, "run", "--url", server.ws, "--users", str(a.users), "--duration", str(a.duration),
                 "--direct-rate", str(a.direct_rate), "--group-rate", str(a.group_rate), "--history-rate", "2",
                 "--reaction-rate", "2", "--typing-rate", "2", "--presence-rate", "1", "--login-rate", "0.2",
                 "--call-rate", "0.2", "--ring-timeout", "5", "--voice-rate", "0.2", "--report-rate", "0",
                 "--export-rate", "0", "--delete-rate", "0", "--post-rate", "1", "--timeline-rate", "1",
                 "--like-rate", "1", "--follow-rate", "0.2", "--drop-share", str(a.drop_share),
                 "--drop-at", str(min(0.5, 60 / a.duration)), "--drop-every", str(a.drop_every),
                 "--server-pid", str(pid), "--report", report_path, "--drain-timeout", "60"]
    load_log = open(os.path.join(work, "load.log"), "w")
    load = subprocess.Popen(load_args, stdout=load_log, stderr=subprocess.STDOUT)
    say("generator started (set-up, then the mix)")

    rows = []
    prev_all = prev_send = None
    started = time.monotonic()
    try:
        while load.poll() is None and time.monotonic() < deadline:
            time.sleep(max(0.0, started + (len(rows) + 1) * a.sample - time.monotonic()))
            if load.poll() is not None:
                break
            text = server.metrics_text()
            h_all, h_send = all_ops_histogram(text), all_ops_histogram(text, "messages.send")
            row = {"minute": round((time.monotonic() - started) / 60, 1),
                   "rss_mb": round(proc_kb(pid, "VmRSS") / 1024, 1),
                   "heap_mb": round((gauge(text, "switchboard_heap_bytes") or 0) / 2**20, 1),
                   "fds": len(os.listdir(f"/proc/{pid}/fd")),
                   "db_mb": round(int(sql(base, f"SELECT pg_database_size('{db}');")) / 2**20, 1)}
            if prev_all is not None:
                q_all, q_send = server_quantiles(prev_all, h_all), server_quantiles(prev_send, h_send)
                row.update(requests=q_all.get("count", 0), p50_ms=q_all.get("p50_ms"), p99_ms=q_all.get("p99_ms"),
                           send_p99_ms=q_send.get("p99_ms"))
            prev_all, prev_send = h_all, h_send
            rows.append(row)
            say("  ".join(f"{k} {v}" for k, v in row.items()))
        if load.poll() is None:
            say("deadline: stopping the generator")
            load.send_signal(signal.SIGINT)
            try:
                load.wait(60)
            except subprocess.TimeoutExpired:
                load.kill()
                load.wait(10)
    finally:
        if load.poll() is None:
            load.kill()
            load.wait(10)
        server.stop()

    report = json.load(open(report_path)) if os.path.exists(report_path) else None
    if report is None:
        load_log.flush()
        print(f"the generator wrote no report (exit {load.returncode}); its log ends:\n"
              + open(load_log.name).read()[-1500:], file=sys.stderr)
    result = judge(a, rows, report)
    table = markdown(rows)
    print(table)
    for name, (ok, detail) in result["checks"].items():
        print(f"{'met    ' if ok else 'NOT MET'} {name}: {detail}")
    if a.table:
        with open(a.table, "w") as f:
            f.write(table + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "checks": result["checks"], "load": report}, f, indent=2)
    if not a.keep:
        sql(base, f"DROP DATABASE IF EXISTS {db};")
    else:
        print(f"kept database {db} and {work}", file=sys.stderr)
    sys.exit(0 if result["passed"] else 1)


def judge(a, rows, report):
    minutes = len(rows)
    window = int(a.flat_window if a.flat_window is not None else (90 if minutes >= 120 else max(1, minutes * 3 // 4)))
    tail = rows[-window:] if rows else []
    checks = {}

    def flat(key, slack_abs=0):
        values = [r[key] for r in tail if r.get(key)]
        if not values:
            return False, "no samples"
        lo, hi = min(values), max(values)
        spread = hi / lo - 1 if lo else float("inf")
        ok = spread <= 0.05 or hi - lo <= slack_abs
        return ok, f"last {len(values)} min: {lo}-{hi} ({spread * 100:.1f}%)"

    checks["rss_flat_5pct"] = flat("rss_mb")
    checks["fds_flat_5pct"] = flat("fds", slack_abs=20)
    early = [r.get("p99_ms") for r in rows[5:20]] if minutes >= 40 else [r.get("p99_ms") for r in
                                                                           rows[minutes // 4: minutes // 2]]
    late = [r.get("p99_ms") for r in rows[-15:]] if minutes >= 40 else [r.get("p99_ms") for r in
                                                                         rows[-max(1, minutes // 4):]]
    e, l = median(early), median(late)
    if e is None or l is None:
        checks["no_p99_drift"] = (False, "not enough samples")
    else:
        checks["no_p99_drift"] = (l <= max(e * 1.25, e + 2), f"median p99 early {e} ms, late {l} ms")
    if report is None:
        checks["nothing_lost"] = (False, "no generator report")
    else:
        rec = report.get("recovery", {})
        errors = sum(report.get("errors", {}).values())
        ok = rec.get("othersIncomplete", 1) == 0 and rec.get("recovered") == rec.get("dropped") and errors == 0
        checks["nothing_lost"] = (ok, f"dropped {rec.get('dropped')} recovered {rec.get('recovered')}, others "
                                      f"incomplete {rec.get('othersIncomplete')}, errors {errors}, messages stored "
                                      f"{report.get('messages_stored')}, generator verdict {report.get('result')}")
    return {"passed": all(ok for ok, _ in checks.values()), "checks": checks}


def markdown(rows):
    head = "| min | RSS MB | heap MB | fds | DB MB | requests | p50 ms | p99 ms | send p99 ms |"
    out = [head, "|" + "---|" * 9]
    for r in rows:
        out.append(f"| {r['minute']} | {r['rss_mb']} | {r['heap_mb']} | {r['fds']} | {r['db_mb']} | "
                   f"{r.get('requests', '')} | {r.get('p50_ms', '')} | {r.get('p99_ms', '')} | "
                   f"{r.get('send_p99_ms', '')} |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
