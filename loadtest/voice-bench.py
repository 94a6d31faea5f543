#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Voice messages end to end: upload a recording over HTTP, send it as a voice message to a group, and time
# until every recipient's device has the message event (upload to delivered). Also reports the upload time
# alone (transcode + store) and the implied speed in x realtime.
#
# Usage: loadtest/voice-bench.py HOST:PORT RECORDING [N=20] [RECIPIENTS=3]
# The recording is any WAV / Ogg/Opus / WebM/Opus file (loadtest/voice-bench.sh makes 30 s of speech with
# espeak-ng and sox). Each iteration appends a few random samples' worth of silence so that no upload is
# deduplicated. Bounded by N and a 600 s deadline.
import asyncio, http.client, json, random, struct, sys, time
import websockets

async def call(ws, rid, op, **p):
    await ws.send(json.dumps({"id": rid, "op": op, **p}))
    while True:
        m = json.loads(await ws.recv())
        if m.get("re") == rid:
            return m

async def register(url, name):
    ws = await websockets.connect(url, subprotocols=["switchboard.v1"], max_size=None)
    phone = "+1555%07d" % random.randrange(10**7)
    r = await call(ws, 1, "register", phone=phone, password=f"{name} bench pass 77", display_name=name, device="bench")
    assert "ok" in r, r
    return ws, r["ok"]["user_id"], r["ok"]["session_token"]

def upload(hostport, token, body, content_type):
    host, port = hostport.split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=60)
    c.request("POST", "/voice", body=body, headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    r = c.getresponse()
    data = r.read()
    c.close()
    if r.status != 201:
        raise RuntimeError(f"upload: {r.status} {data[:200]!r}")
    return json.loads(data)

def vary(wav, i):
    # A WAV with i extra silent samples: a different file (and hash) per iteration, same duration within 1 ms.
    if wav[:4] != b"RIFF":
        return wav
    extra = b"\x00\x00" * (1 + i)
    data_pos = wav.find(b"data")
    size = struct.unpack("<I", wav[data_pos + 4:data_pos + 8])[0]
    out = bytearray(wav[:data_pos + 8 + size]) + extra
    struct.pack_into("<I", out, 4, len(out) - 8)
    struct.pack_into("<I", out, data_pos + 4, size + len(extra))
    return bytes(out)

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] * 1000

async def main(hostport, path, n, recipients):
    url = f"ws://{hostport}/ws"
    recording = open(path, "rb").read()
    ctype = "audio/wav" if recording[:4] == b"RIFF" else ("audio/ogg" if recording[:4] == b"OggS" else "audio/webm")
    sender, sender_id, token = await register(url, "sender")
    others = [await register(url, f"r{i}") for i in range(recipients)]
    rid = 10
    for ws, uid, _ in others:
        rid += 1
        r = await call(sender, rid, "friends.request", user_id=uid)
        req = r["ok"]["request"]["request_id"]
        assert "ok" in await call(ws, 2, "friends.accept", request_id=req)
    rid += 1
    if recipients >= 2:
        g = await call(sender, rid, "groups.create", member_ids=[uid for _, uid, _ in others])
    else:
        g = await call(sender, rid, "conversations.direct", user_id=others[0][1])
    conversation = g["ok"]["conversation"]["conversation_id"]

    async def wait_for(ws, message_id):
        while True:
            m = json.loads(await ws.recv())
            if m.get("ev") == "message" and m["message"]["id"] == message_id:
                return time.perf_counter()

    end_to_end, uploads, duration_ms = [], [], 0
    deadline = time.monotonic() + 600
    for i in range(n):
        if time.monotonic() > deadline:
            break
        body = vary(recording, i)
        t0 = time.perf_counter()
        clip = await asyncio.to_thread(upload, hostport, token, body, ctype)
        t1 = time.perf_counter()
        duration_ms = clip["duration_ms"]
        rid += 1
        ack = await call(sender, rid, "messages.send", conversation_id=conversation, voice_id=clip["voice_id"], client_id=f"v{i}")
        assert "ok" in ack, ack
        arrivals = await asyncio.wait_for(asyncio.gather(*[wait_for(ws, ack["ok"]["message_id"]) for ws, _, _ in others]), 30)
        uploads.append(t1 - t0)
        end_to_end.append(max(arrivals) - t0)
    print(json.dumps({
        "recording_ms": duration_ms, "input_bytes": len(recording), "content_type": ctype, "iterations": len(uploads),
        "recipients": recipients,
        "upload_ms": {"p50": round(pct(uploads, 0.5), 1), "p95": round(pct(uploads, 0.95), 1), "max": round(max(uploads) * 1000, 1)},
        "upload_to_delivered_ms": {"p50": round(pct(end_to_end, 0.5), 1), "p95": round(pct(end_to_end, 0.95), 1),
                                   "max": round(max(end_to_end) * 1000, 1)},
        "x_realtime_incl_http_and_store": round(duration_ms / (pct(uploads, 0.5)), 1),
    }, indent=1))

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 20,
                 int(sys.argv[4]) if len(sys.argv) > 4 else 3))
