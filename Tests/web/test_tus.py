#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent tus 1.0 client (plain http.client and sockets) against a real `switchboard serve`: photo and
voice uploads created, sent in chunks, cut off mid-PATCH by a dropped connection, resumed at the offset HEAD
reports, and stored with POST /photos?upload= and POST /voice?upload=; then the photo is read back with its
ETag, 304 and a range. No browser: it lives here beside the web suites because web clients speak this protocol.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_tus.py

Needs the debug build (or $SWITCHBOARD_SERVER_BIN), psql, vips and the websockets module. Bounded: every socket
has a timeout and every wait a deadline.
"""
import asyncio, base64, http.client, json, math, os, random, socket, struct, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "loadtest"))
import benchlib  # noqa: E402
import websockets  # noqa: E402

TUS = {"Tus-Resumable": "1.0.0"}


async def register(url, name):
    async with websockets.connect(url, subprotocols=["switchboard.v1"]) as ws:
        phone = "+1555%07d" % random.randrange(10**7)
        await ws.send(json.dumps({"id": 1, "op": "register", "phone": phone, "password": f"{name} tus pass 77",
                                  "display_name": name, "device": "tus"}))
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if m.get("re") == 1:
                assert "ok" in m, m
                return m["ok"]["session_token"]


def request(port, method, path, headers=None, body=b""):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def b64(text):
    return base64.b64encode(text.encode()).decode()


def upload_resumably(port, token, data, kind):
    auth = {"Authorization": f"Bearer {token}", **TUS}
    status, h, _ = request(port, "OPTIONS", "/uploads")
    assert status == 204 and h["tus-version"] == "1.0.0" and "creation" in h["tus-extension"], (status, h)
    status, h, _ = request(port, "POST", "/uploads", {**auth, "Upload-Length": str(len(data)),
                                                      "Upload-Metadata": f"kind {b64(kind)},filename {b64('f.bin')}"})
    assert status == 201, status
    location = h["location"]
    patch = {**auth, "Content-Type": "application/offset+octet-stream"}
    third = len(data) // 3
    status, h, _ = request(port, "PATCH", location, {**patch, "Upload-Offset": "0"}, data[:third])
    assert status == 204 and h["upload-offset"] == str(third), (status, h)
    # The next PATCH announces everything left, sends a third, and the connection drops.
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (f"PATCH {location} HTTP/1.1\r\nHost: 127.0.0.1\r\nTus-Resumable: 1.0.0\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/offset+octet-stream\r\nUpload-Offset: {third}\r\n"
            f"Content-Length: {len(data) - third}\r\n\r\n")
    s.sendall(head.encode() + data[third:2 * third])
    s.shutdown(socket.SHUT_RDWR)
    s.close()
    # HEAD reports what arrived; the client resumes there.
    deadline = time.time() + 15
    offset = None
    while time.time() < deadline:
        status, h, _ = request(port, "HEAD", location, auth)
        offset = int(h.get("upload-offset", "-1"))
        if offset == 2 * third:
            break
        time.sleep(0.05)
    assert offset == 2 * third, f"HEAD says {offset}, expected {2 * third}"
    assert h["cache-control"] == "no-store" and h["upload-length"] == str(len(data))
    status, h, _ = request(port, "PATCH", location, {**patch, "Upload-Offset": "0"}, b"x")
    assert status == 409 and h["upload-offset"] == str(offset), (status, h)
    status, h, _ = request(port, "PATCH", location, {**patch, "Upload-Offset": str(offset)}, data[offset:])
    assert status == 204 and h["upload-offset"] == str(len(data)), (status, h)
    endpoint = "/photos" if kind == "photo" else "/voice"
    status, h, body = request(port, "POST", f"{endpoint}?upload={location.rsplit('/', 1)[1]}", {"Authorization": f"Bearer {token}"})
    assert status == 201, (status, body[:300])
    status, _, _ = request(port, "HEAD", location, auth)
    assert status == 404, status
    return json.loads(body)


def wav(seconds=2.0, rate=16000):
    n = int(seconds * rate)
    pcm = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * 440 * i / rate))) for i in range(n))
    return (b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
            + b"data" + struct.pack("<I", len(pcm)) + pcm)


def main():
    base = os.environ.get("SWITCHBOARD_TEST_DATABASE_URL")
    if not base:
        sys.exit("set SWITCHBOARD_TEST_DATABASE_URL")
    work = tempfile.mkdtemp(prefix="switchboard-tus-")
    db = f"tus_{os.getpid()}"
    admin = benchlib.conninfo(base, "postgres")
    benchlib.sql(admin, f"CREATE DATABASE {db}")
    server = None
    try:
        server = benchlib.Server(benchlib.conninfo(base, db), work)
        ann = asyncio.run(register(server.ws, "ann"))
        zed = asyncio.run(register(server.ws, "zed"))
        jpg = os.path.join(work, "photo.jpg")
        subprocess.run(["vips", "gaussnoise", os.path.join(work, "n.v"), "900", "700"], check=True, timeout=60)
        subprocess.run(["vips", "jpegsave", os.path.join(work, "n.v"), jpg, "--Q", "95"], check=True, timeout=60)
        photo = upload_resumably(server.port, ann, open(jpg, "rb").read(), "photo")
        assert photo["width"] == 900 and photo["height"] == 700 and photo["duplicate"] is False, photo
        pid = photo["photo_id"]
        status, h, full = request(server.port, "GET", f"/photos/{pid}?format=jpeg", {"Authorization": f"Bearer {ann}"})
        assert status == 200 and h["content-type"] == "image/jpeg" and full[:2] == b"\xff\xd8", (status, h)
        assert h["cache-control"] == "private, max-age=31536000, immutable"
        status, _, _ = request(server.port, "GET", f"/photos/{pid}?format=jpeg", {"Authorization": f"Bearer {ann}", "If-None-Match": h["etag"]})
        assert status == 304, status
        status, h2, part = request(server.port, "GET", f"/photos/{pid}?format=jpeg", {"Authorization": f"Bearer {ann}", "Range": "bytes=0-99"})
        assert status == 206 and part == full[:100] and h2["content-range"] == f"bytes 0-99/{len(full)}", (status, h2)
        status, _, _ = request(server.port, "GET", f"/photos/{pid}", {"Authorization": f"Bearer {zed}"})
        assert status == 404, status
        voice = upload_resumably(server.port, ann, wav(), "voice")
        assert voice["mime_type"] == "audio/ogg" and abs(voice["duration_ms"] - 2000) <= 40, voice
        print("test_tus: photo and voice uploads resumed after a dropped PATCH, stored, served: ok")
    finally:
        if server:
            server.stop()
        benchlib.sql(admin, f"DROP DATABASE IF EXISTS {db}")


if __name__ == "__main__":
    main()
