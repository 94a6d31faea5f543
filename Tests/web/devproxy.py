"""A development stand-in for the hub's web serving (used only until h/web-serve lands): serves files with the
page's CSP and pipes /ws and /voice connections to the hub untouched. Loopback only."""
import asyncio, mimetypes, os, sys

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")

async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except Exception:
        pass
    finally:
        try: writer.close()
        except Exception: pass

def serve_file(roots, path):
    path = path.split('?')[0]
    if path == '/': path = '/index.html'
    for root in roots:
        full = os.path.realpath(os.path.join(root, path.lstrip('/')))
        if full.startswith(os.path.realpath(root)) and os.path.isfile(full):
            with open(full, 'rb') as f: body = f.read()
            kind = mimetypes.guess_type(full)[0] or 'application/octet-stream'
            if full.endswith('.js'): kind = 'text/javascript'
            return 200, kind, body
    return 404, 'text/plain', b'not found'

async def handle(reader, writer, roots, hub_port):
    try:
        head = await reader.readuntil(b'\r\n\r\n')
    except Exception:
        writer.close(); return
    line = head.split(b'\r\n', 1)[0].decode('latin-1')
    parts = line.split(' ')
    path = parts[1] if len(parts) > 1 else '/'
    if path.startswith('/ws') or path.startswith('/voice'):
        hr, hw = await asyncio.open_connection('127.0.0.1', hub_port)
        hw.write(head); await hw.drain()
        await asyncio.gather(pipe(reader, hw), pipe(hr, writer))
        return
    status, kind, body = serve_file(roots, path)
    writer.write((f'HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n'
                  f'Content-Security-Policy: {CSP}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n').encode() + body)
    await writer.drain(); writer.close()

async def main(port, hub_port, roots):
    server = await asyncio.start_server(lambda r, w: handle(r, w, roots, hub_port), '127.0.0.1', port)
    print('ready', flush=True)
    async with server: await server.serve_forever()

if __name__ == '__main__':
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]))
