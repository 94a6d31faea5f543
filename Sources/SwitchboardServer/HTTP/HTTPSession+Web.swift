//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport
import SwitchboardWebSocket

/// The web app's files (`docs/web.md`), answered on the loop from memory: no file I/O, hashing or compression here.
extension HTTPSession {
    /// Answers a request no other route took: a file of the web app, or 404 (405 for methods other than GET/HEAD).
    func serveWebFile(_ head: HTTPRequestHead, web: WebSite, bodyLength: Int) {
        guard let path = HTTPStatic.filePath(forRequestPath: head.path), let file = web.file(at: path) else {
            respond(status: 404, body: Array("not found\n".utf8), head: head, bodyLength: bodyLength)
            return
        }
        guard head.method == "GET" || head.method == "HEAD" else {
            respond(
                status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8), head: head,
                bodyLength: bodyLength)
            return
        }
        // A client that pipelines requests without reading the answers: it gets no more queued for it (the files
        // are shared, but TLS would encrypt a copy of each).
        guard connection.outboundBytes <= server.configuration.maxOutboundBytes else {
            phase = .closing
            connection.close(mode: .immediately)
            return
        }
        let gzip = file.gzipBody != nil && HTTPStatic.acceptsGzip(head.headers["accept-encoding"])
        let etag = gzip ? file.gzipETag ?? file.etag : file.etag
        let body = gzip ? file.gzipBody ?? file.body : file.body
        // Every file is revalidated on each use (names carry no version); a match costs a 304 without a body.
        var headers: [(String, String)] = [("ETag", etag), ("Cache-Control", "no-cache")]
        if file.gzipBody != nil { headers.append(("Vary", "Accept-Encoding")) }
        if !head.keepAlive { headers.append(("Connection", "close")) }
        if HTTPStatic.ifNoneMatch(head.headers["if-none-match"], matches: etag) {
            write(HTTPResponse.encode(status: 304, headers: headers))
        } else {
            headers.append(("Content-Type", file.contentType))
            if gzip { headers.append(("Content-Encoding", "gzip")) }
            headers.append(("Content-Length", String(body.count)))
            headers += [
                ("X-Content-Type-Options", "nosniff"),
                ("Content-Security-Policy", web.configuration.contentSecurityPolicy),
                ("Referrer-Policy", "no-referrer"),
                ("X-Frame-Options", "DENY"),
                ("Permissions-Policy", "camera=(self), microphone=(self)"),
            ]
            write(HTTPResponse.encode(status: 200, headers: headers))
            // The stored bytes go out as they are (no copy into the head's buffer).
            if head.method != "HEAD" { write(body) }
        }
        finishPlainResponse(keepAlive: head.keepAlive, bodyLength: bodyLength)
    }
}
