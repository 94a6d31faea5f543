#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Logins per second over the real protocol (Argon2id-bound). Registers one user, then runs N logins
# over C concurrent connections (a fresh connection per login). Bounded by N and a 120 s deadline.
# Start the server with raised login limits (--login-burst-per-phone/--login-burst-per-address), since
# every login comes from one phone number and one address.
# Usage: loadtest/login-bench.py ws://127.0.0.1:PORT/ws [N=200] [C=8]
import asyncio, json, random, sys, time
import websockets

async def call(ws, rid, op, **p):
    await ws.send(json.dumps({"id": rid, "op": op, **p}))
    while True:
        m = json.loads(await ws.recv())
        if m.get("re") == rid:
            return m

async def main(url, n, c):
    phone = "+1555%07d" % random.randrange(10**7)
    async with websockets.connect(url, subprotocols=["switchboard.v1"]) as ws:
        r = await call(ws, 1, "register", phone=phone, password="bench mark 99", display_name="Bench", device="b")
        assert "ok" in r, r
    latencies, errors = [], 0
    queue = asyncio.Queue()
    for i in range(n): queue.put_nowait(i)
    async def worker():
        nonlocal errors
        async with websockets.connect(url, subprotocols=["switchboard.v1"]) as ws:
            rid = 0
            while not queue.empty():
                queue.get_nowait(); rid += 1
                t = time.perf_counter()
                r = await call(ws, rid, "login", phone=phone, password="bench mark 99", device="b")
                latencies.append(time.perf_counter() - t)
                if "ok" not in r:
                    errors += 1
                else:
                    # Back to unauthenticated: reconnect for the next login.
                    await ws.close()
                    ws = await websockets.connect(url, subprotocols=["switchboard.v1"])
            await ws.close()
    t0 = time.perf_counter()
    await asyncio.gather(*[worker() for _ in range(c)])
    dt = time.perf_counter() - t0
    latencies.sort()
    print(f"{n} logins, {c} concurrent: {n/dt:.1f} logins/s, p50 {latencies[len(latencies)//2]*1000:.1f} ms, "
          f"p99 {latencies[int(len(latencies)*0.99)-1]*1000:.1f} ms, errors {errors}")

asyncio.run(asyncio.wait_for(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200,
                                  int(sys.argv[3]) if len(sys.argv) > 3 else 8), 120))
