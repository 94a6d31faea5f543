#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""HEIC decoding memory (issue 37): the server's peak RSS while N phone-sized HEIC photos are uploaded at once, for
each `--photo-heic-workers` value given. HEIF has no shrink-on-load (libheif decodes the whole picture), so each
decode in flight holds its whole image; the HEIF workers bound how many.

    eval "$(scripts/test-postgres.sh start /tmp/pg-heic)"
    python3 loadtest/heic-memory.py [--uploads 4] [--workers 1,4] [--width 4032 --height 3024]

Makes distinct HEIC files with libvips (`vips gaussnoise` then `heifsave`: noise, so nothing compresses away), one
user (a session made in SQL), then per workers value: a fresh server (`--photo-heic-workers W`, `--photo-workers`
the same as W so that the general pool is not the limit), its RSS before, all uploads at once, the peak (VmHWM), and
each upload's status (201 stored, 503 busy). Prints one row per value. Not in CI (a minute per row).
"""

import argparse, concurrent.futures, json, os, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Server, conninfo, make_token, prepare_run, proc_kb as kb, server_binary, sql  # noqa: E402


def upload(http, token, body):
    request = urllib.request.Request(http + "/photos", data=body, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "image/heic"})
    try:
        with urllib.request.urlopen(request, timeout=300) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--uploads", type=int, default=4)
    p.add_argument("--workers", default="1,4")
    p.add_argument("--width", type=int, default=4032)
    p.add_argument("--height", type=int, default=3024)
    p.add_argument("--max-waiting", type=int, default=16)
    a = p.parse_args()
    binary = os.environ.get("SWITCHBOARD_SERVER_BIN") or server_binary(prefer_release=True)
    prepare_run(binary)
    base = os.environ["SWITCHBOARD_TEST_DATABASE_URL"]
    work = tempfile.mkdtemp(prefix="heic-memory.")
    files = []
    for i in range(a.uploads):
        v, heic = os.path.join(work, f"n{i}.v"), os.path.join(work, f"n{i}.heic")
        subprocess.run(["vips", "gaussnoise", v, str(a.width), str(a.height), "--mean", str(100 + i), "--sigma", "40"],
                       check=True)
        subprocess.run(["vips", "colourspace", v, v + ".srgb.v", "srgb"], check=True)
        subprocess.run(["vips", "bandjoin", f"{v}.srgb.v {v}.srgb.v {v}.srgb.v", v + ".rgb.v"], check=True)
        subprocess.run(["vips", "cast", v + ".rgb.v", v + ".u8.v", "uchar"], check=True)
        subprocess.run(["vips", "heifsave", v + ".u8.v", heic, "--compression", "hevc", "--Q", "50"], check=True)
        with open(heic, "rb") as f:
            files.append(f.read())
    print(f"{a.uploads} HEIC files of {a.width} x {a.height} ({a.width * a.height / 1e6:.1f} MP), "
          f"{sum(map(len, files)) // len(files) // 1024} KB each; binary {binary}", flush=True)
    rows = []
    for workers in [int(w) for w in a.workers.split(",")]:
        db = f"heic_{os.getpid()}_{workers}"
        sql(base, f"CREATE DATABASE {db}")
        url = conninfo(base, db)
        server = Server(url, work, binary=binary, extra=(
            "--photo-heic-workers", str(workers), "--photo-workers", str(workers),
            "--photo-max-waiting", str(a.max_waiting)))
        try:
            token, digest = make_token()
            sql(url, "INSERT INTO users (phone, password_hash, display_name) VALUES ('+15550001111', 'x', 'Bench')")
            sql(url, "INSERT INTO sessions (user_id, token_hash, device) SELECT id, decode('%s', 'hex'), 'bench' "
                     "FROM users WHERE phone = '+15550001111'" % digest)
            pid = server.proc.pid
            before = kb(pid, "VmRSS")
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")
            started = time.monotonic()
            with concurrent.futures.ThreadPoolExecutor(a.uploads) as pool:
                statuses = list(pool.map(lambda body: upload(server.http, token, body), files))
            elapsed = time.monotonic() - started
            peak = kb(pid, "VmHWM")
            row = {"heic_workers": workers, "uploads": a.uploads, "statuses": statuses,
                   "rss_before_mb": round(before / 1024), "peak_rss_mb": round(peak / 1024),
                   "peak_above_before_mb": round((peak - before) / 1024), "seconds": round(elapsed, 1)}
            rows.append(row)
            print(json.dumps(row), flush=True)
        finally:
            server.stop()
            sql(base, f"DROP DATABASE {db}")
    return rows


if __name__ == "__main__":
    main()
