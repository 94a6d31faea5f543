//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import SwitchboardWebSocket
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A copy of `Tests/web/fixture` in a fresh temporary folder (tests change files in it), with a dotfile, a
/// dot-folder, a link to a file outside the root and a link inside it.
private func makeWebRoot() throws -> (root: URL, outside: URL) {
    let fm = FileManager.default
    let base = fm.temporaryDirectory.appendingPathComponent("sb-web-\(UUID().uuidString)")
    let root = base.appendingPathComponent("root")
    try fm.createDirectory(at: base, withIntermediateDirectories: true)
    try fm.copyItem(at: repositoryRoot.appendingPathComponent("Tests/web/fixture"), to: root)
    try Data("SECRET=1\n".utf8).write(to: root.appendingPathComponent(".env"))
    try fm.createDirectory(at: root.appendingPathComponent(".git"), withIntermediateDirectories: true)
    try Data("[core]\n".utf8).write(to: root.appendingPathComponent(".git/config"))
    let outside = base.appendingPathComponent("outside.txt")
    try Data("outside the root\n".utf8).write(to: outside)
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("escape.txt").path, withDestinationPath: outside.path)
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("up").path, withDestinationPath: base.path)
    try fm.createSymbolicLink(
        atPath: root.appendingPathComponent("alias.css").path, withDestinationPath: "css/site.css")
    try Data("plain text file\n".utf8).write(to: root.appendingPathComponent("notes.txt"))
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: root.appendingPathComponent("dot.png"))
    return (root, outside)
}

/// Removes a folder made by `makeWebRoot`.
private func removeWebRoot(_ root: URL) {
    try? FileManager.default.removeItem(at: root.deletingLastPathComponent())
}

private func startWebServer(
    root: URL?, _ adjust: (inout ServerConfiguration) -> Void = { _ in }
) throws -> (HubServer, Int) {
    try startServer { c in
        c.web.root = root?.path
        c.web.refreshInterval = 0.05
        adjust(&c)
    }
}

/// One request on a fresh connection: (status, head, body).
private func fetch(
    _ port: Int, _ path: String, method: String = "GET", headers: String = ""
) throws -> (status: Int, head: String, body: [UInt8]) {
    let socket = try TestSocket(port: port)
    try socket.send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n")
    if method == "HEAD" {
        let head = try socket.readHead()
        return (Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, head, [])
    }
    return try socket.readResponse()
}

/// A header's value in a response head (case-insensitive name).
private func header(_ name: String, in head: String) -> String? {
    for line in head.split(separator: "\r\n") {
        let parts = line.split(separator: ":", maxSplits: 1)
        if parts.count == 2, parts[0].lowercased() == name.lowercased() {
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
    }
    return nil
}

@Suite("Web app serving over real sockets", .serialized)
struct WebServingTests {
    @Test func indexAndContentTypesAndSecurityHeaders() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        let (server, port) = try startWebServer(root: root)
        defer { stop(server) }
        let index = try fetch(port, "/")
        #expect(index.status == 200)
        let onDisk = try Data(contentsOf: root.appendingPathComponent("index.html"))
        #expect(index.body == Array(onDisk))
        #expect(header("Content-Type", in: index.head) == "text/html; charset=utf-8")
        #expect(header("X-Content-Type-Options", in: index.head) == "nosniff")
        let csp = header("Content-Security-Policy", in: index.head) ?? ""
        #expect(
            csp.contains("default-src 'self'") && csp.contains("script-src 'self'")
                && csp.contains("frame-ancestors 'none'"))
        #expect(header("Referrer-Policy", in: index.head) == "no-referrer")
        #expect(header("X-Frame-Options", in: index.head) == "DENY")
        #expect(header("Permissions-Policy", in: index.head) == "camera=(self), microphone=(self)")
        #expect(header("Cache-Control", in: index.head) == "no-cache")
        #expect(try fetch(port, "/index.html").body == index.body)
        let types = [
            "/js/app.js": "text/javascript; charset=utf-8", "/css/site.css": "text/css; charset=utf-8",
            "/notes.txt": "text/plain; charset=utf-8", "/dot.png": "image/png", "/alias.css": "text/css; charset=utf-8",
        ]
        for (path, type) in types {
            let r = try fetch(port, path)
            #expect(r.status == 200, "\(path)")
            #expect(header("Content-Type", in: r.head) == type, "\(path)")
            #expect(header("X-Content-Type-Options", in: r.head) == "nosniff", "\(path)")
        }
        // Existing routes keep precedence; unknown paths are 404.
        #expect(try fetch(port, "/healthz").body == Array("ok\n".utf8))
        #expect(try fetch(port, "/nowhere.js").status == 404)
        #expect(try fetch(port, "/js/").status == 404)
    }

    @Test func headAndMethods() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        let (server, port) = try startWebServer(root: root)
        defer { stop(server) }
        let get = try fetch(port, "/css/site.css")
        let head = try fetch(port, "/css/site.css", method: "HEAD")
        #expect(head.status == 200)
        #expect(header("Content-Length", in: head.head) == String(get.body.count))
        #expect(header("ETag", in: head.head) == header("ETag", in: get.head))
        // The connection is still usable after a HEAD (no body was sent).
        let socket = try TestSocket(port: port)
        try socket.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try socket.readHead()
        #expect(try socket.readResponse().body == Array("ok\n".utf8))
        let post = try fetch(port, "/index.html", method: "POST", headers: "Content-Length: 3\r\n\r\nabc")
        #expect(post.status == 405)
        #expect(header("Allow", in: post.head) == "GET, HEAD")
        #expect(try fetch(port, "/", method: "DELETE").status == 405)
    }

    @Test func conditionalRequestsGet304() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        let (server, port) = try startWebServer(root: root)
        defer { stop(server) }
        let first = try fetch(port, "/css/site.css")
        let etag = try #require(header("ETag", in: first.head))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        let again = try fetch(port, "/css/site.css", headers: "If-None-Match: \(etag)\r\n")
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(header("ETag", in: again.head) == etag)
        #expect(try fetch(port, "/css/site.css", headers: "If-None-Match: \"other\", W/\(etag)\r\n").status == 304)
        #expect(try fetch(port, "/css/site.css", headers: "If-None-Match: \"other\"\r\n").status == 200)
        // A 304 on a kept-alive connection leaves it usable.
        let socket = try TestSocket(port: port)
        try socket.send(
            "GET /css/site.css HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n\r\n"
                + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        #expect(try socket.readHead().hasPrefix("HTTP/1.1 304"))
        #expect(try socket.readResponse().status == 200)
    }

    @Test func gzipRoundTrip() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        let (server, port) = try startWebServer(root: root)
        defer { stop(server) }
        let onDisk = Array(try Data(contentsOf: root.appendingPathComponent("js/app.js")))
        #expect(onDisk.count > 1024)
        let plain = try fetch(port, "/js/app.js")
        #expect(plain.body == onDisk)
        #expect(header("Content-Encoding", in: plain.head) == nil)
        #expect(header("Vary", in: plain.head) == "Accept-Encoding")
        let zipped = try fetch(port, "/js/app.js", headers: "Accept-Encoding: gzip, deflate, br\r\n")
        #expect(header("Content-Encoding", in: zipped.head) == "gzip")
        #expect(header("Vary", in: zipped.head) == "Accept-Encoding")
        #expect(zipped.body.count < onDisk.count)
        #expect(HTTPStatic.gunzip(zipped.body) == onDisk)
        // The two forms have different tags, and each revalidates only itself.
        let plainTag = try #require(header("ETag", in: plain.head))
        let zippedTag = try #require(header("ETag", in: zipped.head))
        #expect(plainTag != zippedTag)
        #expect(
            try fetch(port, "/js/app.js", headers: "Accept-Encoding: gzip\r\nIf-None-Match: \(zippedTag)\r\n").status
                == 304)
        #expect(try fetch(port, "/js/app.js", headers: "If-None-Match: \(zippedTag)\r\n").status == 200)
        // Refused gzip, and a small file, stay identity.
        #expect(
            header("Content-Encoding", in: try fetch(port, "/js/app.js", headers: "Accept-Encoding: gzip;q=0\r\n").head)
                == nil)
        #expect(
            header("Content-Encoding", in: try fetch(port, "/css/site.css", headers: "Accept-Encoding: gzip\r\n").head)
                == nil)
        // HEAD states the gzip form's length.
        let head = try fetch(port, "/js/app.js", method: "HEAD", headers: "Accept-Encoding: gzip\r\n")
        #expect(header("Content-Length", in: head.head) == String(zipped.body.count))
    }

    @Test func traversalDotfilesAndLinksOutsideAreRefused() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        let (server, port) = try startWebServer(root: root)
        defer { stop(server) }
        let attempts = [
            "/../outside.txt", "/js/../../outside.txt", "/%2e%2e/outside.txt", "/%2E%2E%2Foutside.txt",
            "/js/%2e%2e/index.html",
            "/..%5coutside.txt", "/js\\..\\index.html", "/index.html%00.js", "/.env", "/%2eenv", "/.git/config",
            "/escape.txt",
            "/up/outside.txt", "/up/root/index.html", "//index.html", "/js//app.js", "/./index.html", "/%zz",
            "/index.html%",
        ]
        for path in attempts {
            let r = try fetch(port, path)
            #expect(r.status == 404 || r.status == 400, "\(path): \(r.status)")
            let text = String(decoding: r.body, as: UTF8.self)
            #expect(
                !text.contains("SECRET") && !text.contains("outside the root") && !text.contains("[core]"), "\(path)")
        }
        // An encoded name that is a real file is served.
        #expect(try fetch(port, "/notes%2etxt").status == 200)
    }

    @Test func noWebRootIsNotFound() throws {
        let (server, port) = try startWebServer(root: nil)
        defer { stop(server) }
        #expect(try fetch(port, "/").status == 404)
        #expect(try fetch(port, "/index.html").status == 404)
        #expect(try fetch(port, "/healthz").status == 200)
    }

    @Test func changedFilesAreServedAfterTheRefresh() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        let (server, port) = try startWebServer(root: root)
        defer { stop(server) }
        let before = try fetch(port, "/css/site.css")
        let oldTag = try #require(header("ETag", in: before.head))
        let edited = "/* edited */ body { color: #000; }\n"
        try Data(edited.utf8).write(to: root.appendingPathComponent("css/site.css"))
        try Data("new file\n".utf8).write(to: root.appendingPathComponent("added.txt"))
        #expect(waitUntil { (try? fetch(port, "/css/site.css").body) == Array(edited.utf8) })
        #expect(waitUntil { (try? fetch(port, "/added.txt").status) == 200 })
        let after = try fetch(port, "/css/site.css", headers: "If-None-Match: \(oldTag)\r\n")
        #expect(after.status == 200)
        #expect(header("ETag", in: after.head) != oldTag)
        try FileManager.default.removeItem(at: root.appendingPathComponent("added.txt"))
        #expect(waitUntil { (try? fetch(port, "/added.txt").status) == 404 })
    }

    @Test func filesOverTheLimitsAreLeftOut() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        try Data(repeating: 0x61, count: 5000).write(to: root.appendingPathComponent("big.txt"))
        let (server, port) = try startWebServer(root: root) { $0.web.maxFileBytes = 4096 }
        defer { stop(server) }
        #expect(try fetch(port, "/big.txt").status == 404)
        #expect(try fetch(port, "/").status == 200)
        let (small, smallPort) = try startWebServer(root: root) { $0.web.maxTotalBytes = 1 }
        defer { stop(small) }
        #expect(try fetch(smallPort, "/").status == 404)
    }

    @Test func aClientThatPipelinesWithoutReadingIsClosed() throws {
        let (root, _) = try makeWebRoot()
        defer { removeWebRoot(root) }
        let (server, port) = try startWebServer(root: root) { $0.maxOutboundBytes = 64 * 1024 }
        defer { stop(server) }
        let socket = try TestSocket(port: port, timeout: 10)
        socket.setReceiveBuffer(4096)
        let requests = 4000
        let request = Array("GET /js/app.js HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        // Nothing is read while the requests go out; the send fails once the server has closed.
        for _ in 0..<requests / 100 {
            guard (try? socket.send(Array([[UInt8]](repeating: request, count: 100).joined()))) != nil else { break }
        }
        #expect(socket.readUntilClosed())
        let answered = String(decoding: socket.buffer, as: UTF8.self).components(separatedBy: "HTTP/1.1 200").count - 1
        #expect(answered < requests, "\(answered) answers queued for a client that did not read")
    }

    @Test func theLoggedAddressIsOneABrowserCanOpen() {
        #expect(HubServer.pageURL(host: "0.0.0.0", port: 8080, tls: false) == "http://127.0.0.1:8080/")
        #expect(HubServer.pageURL(host: "hub.example", port: 443, tls: true) == "https://hub.example:443/")
        #expect(HubServer.pageURL(host: "::", port: 8080, tls: false) == "http://[::1]:8080/")
        #expect(HubServer.pageURL(host: "::1", port: 80, tls: false) == "http://[::1]:80/")
    }

    @Test func samePageOriginMayOpenTheWebSocket() throws {
        let (server, port) = try startWebServer(root: nil) { $0.allowedOrigins = ["https://app.example"] }
        defer { stop(server) }
        func status(origin: String, host: String = "127.0.0.1:\(port)") throws -> Int {
            let socket = try TestSocket(port: port)
            let request = upgradeRequest(extraHeaders: "Origin: \(origin)\r\n")
                .replacingOccurrences(of: "Host: 127.0.0.1\r\n", with: "Host: \(host)\r\n")
            try socket.send(request)
            let head = try socket.readHead()
            return Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        #expect(try status(origin: "http://127.0.0.1:\(port)") == 101)
        #expect(try status(origin: "https://127.0.0.1:\(port)") == 101)
        #expect(try status(origin: "HTTP://127.0.0.1:\(port)") == 101)
        #expect(try status(origin: "https://app.example") == 101)
        #expect(try status(origin: "http://127.0.0.1:1") == 403)
        #expect(try status(origin: "http://evil.example") == 403)
        #expect(try status(origin: "http://127.0.0.1:\(port).evil.example") == 403)
        #expect(try status(origin: "null") == 403)
        #expect(try status(origin: "ftp://127.0.0.1:\(port)") == 403)
    }
}
