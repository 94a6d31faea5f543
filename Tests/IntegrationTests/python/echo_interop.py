#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# An independent client (Python `websockets`) against Switchboard's /echo endpoint.
# Usage: echo_interop.py ws://127.0.0.1:PORT/echo [--compression]
# Prints one line per check and exits non-zero on the first failure.
import asyncio
import os
import sys

import websockets


async def main(url: str, compression: bool) -> None:
    kwargs = {"compression": "deflate" if compression else None, "max_size": 2**24}
    if url.startswith("wss://"):
        import ssl
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        kwargs["ssl"] = ctx
    async with websockets.connect(url, **kwargs) as ws:
        ext = ws.response.headers.get("Sec-WebSocket-Extensions") if hasattr(ws, "response") else None
        if compression and not (ext and "permessage-deflate" in ext):
            raise SystemExit(f"FAIL permessage-deflate not negotiated: {ext!r}")
        await ws.send("hello, switchboard ✓")
        got = await ws.recv()
        assert got == "hello, switchboard ✓", got
        print("ok text")
        blob = os.urandom(200_000)
        await ws.send(blob)
        got = await ws.recv()
        assert got == blob, "binary mismatch"
        print("ok binary 200000")
        await ws.send(["frag", "mented ", "message"])
        got = await ws.recv()
        assert got == "fragmented message", got
        print("ok fragmented")
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 5)
        print("ok ping")
        for i in range(100):
            await ws.send(f"m{i}")
        for i in range(100):
            got = await ws.recv()
            assert got == f"m{i}", got
        print("ok ordered 100")
        await ws.close(code=1000, reason="bye")
        assert ws.close_code == 1000, ws.close_code
        print("ok close 1000")


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(main(sys.argv[1], "--compression" in sys.argv), 30))
