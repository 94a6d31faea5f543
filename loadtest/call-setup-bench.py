#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Call set-up time with real media: from the accept to the first received media, as the terminal client reports
it (`call.media.connected`'s `setup_ms`), for voice and video calls over direct (host) and TURN (relay) paths.

Starts its own coturn (use-auth-secret, loopback), a switchboard server (SWITCHBOARD_SERVER_BIN, default the debug
build) on a fresh database in $SWITCHBOARD_TEST_DATABASE_URL, registers two users with switchboard-cli, then places
N calls per kind: `listen --auto-answer --once` on one side, `call --hangup-after 1` on the other, both with
`--ice-address 127.0.0.1` (so it runs anywhere, including a loopback-only namespace). Judged against the apps'
budgets: voice connected within 5 s, video within 10 s (the 95th percentile and the maximum).

    SWITCHBOARD_TEST_DATABASE_URL=... python3 loadtest/call-setup-bench.py [--calls 10] [--json FILE]

Exit 1 when a call failed or a budget was missed.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("SWITCHBOARD_SERVER_BIN", os.path.join(ROOT, ".build/debug/switchboard"))
CLI = os.environ.get("SWITCHBOARD_CLI_BIN", os.path.join(ROOT, ".build/debug/switchboard-cli"))
BUDGET_MS = {"voice": 5000, "video": 10000}


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on port {port} after {timeout} s")


def percentile(values, p):
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[k]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10, help="calls per kind (1-100)")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    calls = max(1, min(args.calls, 100))
    database = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL")
    if not database:
        raise SystemExit("set SWITCHBOARD_TEST_DATABASE_URL (scripts/test-postgres.sh start DIR prints it)")
    if not shutil.which("turnserver"):
        raise SystemExit("coturn is missing: apt-get install coturn")
    work = tempfile.mkdtemp(prefix="switchboard-call-setup.")
    processes = []
    dbname = "callsetup_" + uuid.uuid4().hex[:8]
    subprocess.run(["psql", database, "-qc", f"create database {dbname}"], check=True, capture_output=True)
    db_url = f"{database} dbname={dbname}" if "dbname=" not in database else database.rsplit("dbname=", 1)[0] + f"dbname={dbname}"
    try:
        secret = uuid.uuid4().hex
        turn_port = free_port(socket.SOCK_DGRAM)
        turn = subprocess.Popen(
            ["turnserver", "-n", "--use-auth-secret", f"--static-auth-secret={secret}", "--realm=switchboard",
             "--listening-ip=127.0.0.1", f"--listening-port={turn_port}", "--relay-ip=127.0.0.1",
             "--min-port=49300", "--max-port=49600", "--no-tls", "--no-dtls", "--allow-loopback-peers", "--no-cli",
             "--log-file=stdout", "--simple-log"],
            stdout=open(os.path.join(work, "turn.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(turn)
        port = free_port()
        server = subprocess.Popen(
            [SERVER, "serve", "--host", "127.0.0.1", "--port", str(port), "--database-url", db_url, "--log-level", "warning",
             "--turn-uris", f"turn:127.0.0.1:{turn_port}?transport=udp", "--turn-secret", secret, "--turn-rate", "1000"],
            stdout=open(os.path.join(work, "server.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(server)
        wait_port(port)
        env = dict(os.environ, SWITCHBOARD_URL=f"ws://127.0.0.1:{port}/ws", SWITCHBOARD_CONFIG_DIR=os.path.join(work, "cfg"))
        env.pop("SWITCHBOARD_NO_MEDIA", None)

        def cli(*a, stdin=None):
            p = subprocess.run([CLI, *a], input=stdin, env=env, capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                raise SystemExit(f"switchboard-cli {' '.join(a)}: exit {p.returncode}: {p.stderr}")
            return p.stdout

        cli("register", "--profile", "a", "--phone", "+15557000001", "--name", "Ann", "--password-stdin", stdin="bench-password-1\n")
        cli("register", "--profile", "b", "--phone", "+15557000002", "--name", "Bob", "--password-stdin", stdin="bench-password-1\n")
        cli("friends", "add", "+15557000002", "--profile", "a")
        cli("friends", "accept", "+15557000001", "--profile", "b")

        results = {}
        failures = []
        for media in ("voice", "video"):
            for path in ("host", "relay"):
                key = f"{media}/{path}"
                results[key] = []
                extra = ["--ice-address", "127.0.0.1"] + (["--relay-only"] if path == "relay" else [])
                for i in range(calls):
                    listener = subprocess.Popen(
                        [CLI, "listen", "--profile", "b", "--auto-answer", "--once", "--json", *extra],
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
                    # Wait until the listener is connected (its first line).
                    first = listener.stdout.readline()
                    if '"listening"' not in first:
                        failures.append(f"{key} #{i}: listen did not start: {first!r}")
                        listener.kill()
                        listener.wait()
                        continue
                    call = subprocess.run(
                        [CLI, "call", "Bob", "--profile", "a", "--json", "--hangup-after", "1", *extra,
                         *(["--video"] if media == "video" else [])],
                        stdin=subprocess.DEVNULL, capture_output=True, env=env, text=True, timeout=60)
                    try:
                        listener.wait(timeout=20)
                    except subprocess.TimeoutExpired:
                        listener.kill()
                        listener.wait()
                    records = [json.loads(line) for line in call.stdout.splitlines() if line.startswith("{")]
                    connected = [r for r in records if r.get("type") == "call.media.connected"]
                    if call.returncode != 0 or not connected:
                        failures.append(f"{key} #{i}: exit {call.returncode}, connected {connected}, stderr {call.stderr[-300:]}")
                        continue
                    if connected[0].get("pair") != path:
                        failures.append(f"{key} #{i}: pair {connected[0].get('pair')}")
                    results[key].append(connected[0]["setup_ms"])
        rows = {}
        verdict = True
        print(f"{'kind':<12} {'calls':>5} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'budget':>7}")
        for key, values in results.items():
            budget = BUDGET_MS[key.split("/")[0]]
            if not values:
                verdict = False
                print(f"{key:<12} {0:>5}       -       -       - {budget:>7}")
                continue
            row = {"calls": len(values), "p50_ms": percentile(values, 50), "p95_ms": percentile(values, 95),
                   "max_ms": max(values), "budget_ms": budget}
            rows[key] = row
            ok = row["max_ms"] <= budget
            verdict = verdict and ok
            print(f"{key:<12} {row['calls']:>5} {row['p50_ms']:>7} {row['p95_ms']:>7} {row['max_ms']:>7} {budget:>7} {'PASS' if ok else 'FAIL'}")
        for f in failures:
            print("failed:", f)
        if args.json:
            with open(args.json, "w") as out:
                json.dump({"calls_per_kind": calls, "results": rows, "failures": failures}, out, indent=2)
        ok = verdict and not failures
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    finally:
        for p in reversed(processes):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        subprocess.run(["psql", database, "-qc", f"drop database if exists {dbname}"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
