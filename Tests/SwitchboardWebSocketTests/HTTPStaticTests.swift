//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardWebSocket

@Suite("Static file helpers")
struct HTTPStaticTests {
    @Test(arguments: [
        ("/", "/index.html"), ("/index.html", "/index.html"), ("/js/app.js", "/js/app.js"),
        ("/css/", "/css/index.html"),
        ("/a%20b.js", "/a b.js"), ("/notes%2etxt", "/notes.txt"), ("/%E2%9C%93.txt", "/\u{2713}.txt"),
        ("/a..b.js", "/a..b.js"), ("/x.", "/x."),
        // A combining mark right after a slash: one Character with it, but the slash still separates (found by
        // the fuzzer: it came out as "/").
        ("/\u{06D6}", "/\u{06D6}"), ("/js/\u{0301}x.js", "/js/\u{0301}x.js"), ("/%CC%81/", "/\u{0301}/index.html"),
    ])
    func pathsThatNameFiles(request: String, file: String) {
        let found = HTTPStatic.filePath(forRequestPath: request)
        #expect(found.map { Array($0.utf8) } == Array(file.utf8), "\(request.debugDescription)")
    }

    @Test(arguments: [
        "", "index.html", "*", "http://x/index.html", "/..", "/../etc/passwd", "/js/../index.html", "/%2e%2e/x",
        "/%2E%2E/x",
        "/.%2e/x", "/%2e/x", "/./x", "/.", "/.env", "/.git/config", "/js/.hidden", "/%2eenv", "/a%2fb", "/a%2Fb",
        "/a%5cb", "/a\\b", "/a%00b", "/a\u{0}b", "/a%0ab", "/a%0d%0ab", "/a%7fb", "/a\tb", "//x", "/a//b", "/%", "/%2",
        "/%zz", "/%g0", "/%c3%28", "/%ff", "/%e2%82", "/" + String(repeating: "a", count: 1100),
        "/" + String(repeating: "%61", count: 1100),
        "/\u{0301}/../x", "/a/\u{0301}/./b", "/x/%CC%81/%2e%2e/y", "/\u{0301}//x",
        // A folder within the limit whose index.html would pass it (HTTPHeadFuzz found one).
        "/" + String(repeating: "a", count: 1018) + "/",
    ])
    func pathsThatNameNothing(request: String) {
        #expect(HTTPStatic.filePath(forRequestPath: request) == nil, "\(request.debugDescription)")
    }

    @Test func acceptEncoding() {
        #expect(HTTPStatic.acceptsGzip("gzip"))
        #expect(HTTPStatic.acceptsGzip("gzip, deflate, br, zstd"))
        #expect(HTTPStatic.acceptsGzip("br;q=1.0, GZIP;q=0.5"))
        #expect(HTTPStatic.acceptsGzip("x-gzip"))
        #expect(HTTPStatic.acceptsGzip("*"))
        #expect(HTTPStatic.acceptsGzip("identity;q=0.5, *;q=0.1"))
        #expect(!HTTPStatic.acceptsGzip(nil))
        #expect(!HTTPStatic.acceptsGzip(""))
        #expect(!HTTPStatic.acceptsGzip("identity"))
        #expect(!HTTPStatic.acceptsGzip("br"))
        #expect(!HTTPStatic.acceptsGzip("gzip;q=0"))
        #expect(!HTTPStatic.acceptsGzip("gzip;q=0.000"))
        #expect(!HTTPStatic.acceptsGzip("gzip;q=zero"))
        #expect(!HTTPStatic.acceptsGzip("*;q=0"))
        #expect(!HTTPStatic.acceptsGzip("gzip;q=0, *"))
        #expect(!HTTPStatic.acceptsGzip(",,;;=,q=1"))
    }

    @Test func ifNoneMatch() {
        let tag = "\"abc\""
        #expect(HTTPStatic.ifNoneMatch("\"abc\"", matches: tag))
        #expect(HTTPStatic.ifNoneMatch("W/\"abc\"", matches: tag))
        #expect(HTTPStatic.ifNoneMatch("\"x\", \"abc\"", matches: tag))
        #expect(HTTPStatic.ifNoneMatch("\"x,y\",\"abc\"", matches: tag))
        #expect(HTTPStatic.ifNoneMatch(" * ", matches: tag))
        #expect(!HTTPStatic.ifNoneMatch(nil, matches: tag))
        #expect(!HTTPStatic.ifNoneMatch("", matches: tag))
        #expect(!HTTPStatic.ifNoneMatch("abc", matches: tag))
        #expect(!HTTPStatic.ifNoneMatch("\"abc", matches: tag))
        #expect(!HTTPStatic.ifNoneMatch("\"abcd\"", matches: tag))
        #expect(!HTTPStatic.ifNoneMatch("\"ab\"", matches: tag))
        #expect(!HTTPStatic.ifNoneMatch("\"abc-gz\"", matches: tag))
        #expect(!HTTPStatic.ifNoneMatch("garbage, \"abc\"", matches: tag))
    }

    @Test func contentTypes() {
        #expect(HTTPStatic.contentType(forPath: "/index.html").type == "text/html; charset=utf-8")
        #expect(HTTPStatic.contentType(forPath: "/js/app.js").type == "text/javascript; charset=utf-8")
        #expect(HTTPStatic.contentType(forPath: "/js/app.MJS").type == "text/javascript; charset=utf-8")
        #expect(HTTPStatic.contentType(forPath: "/a.webmanifest").type == "application/manifest+json")
        #expect(HTTPStatic.contentType(forPath: "/f.woff2") == ("font/woff2", false))
        #expect(HTTPStatic.contentType(forPath: "/i.png") == ("image/png", false))
        #expect(HTTPStatic.contentType(forPath: "/i.svg") == ("image/svg+xml", true))
        #expect(HTTPStatic.contentType(forPath: "/README").type == "application/octet-stream")
        #expect(HTTPStatic.contentType(forPath: "/x.unknown").type == "application/octet-stream")
    }

    @Test func gzipRoundTripsAndTagsDiffer() {
        let text = Array(String(repeating: "switchboard serves the web app. ", count: 200).utf8)
        let gz = HTTPStatic.gzip(text)
        #expect(gz != nil && gz!.count < text.count && gz![0] == 0x1F && gz![1] == 0x8B)
        #expect(HTTPStatic.gunzip(gz!) == text)
        #expect(HTTPStatic.gunzip(Array(gz!.dropLast(4))) == nil)
        #expect(HTTPStatic.gunzip(text) == nil)
        #expect(HTTPStatic.gunzip(gz!, maxBytes: 100) == nil)
        #expect(HTTPStatic.gzip([]).flatMap { HTTPStatic.gunzip($0) } == [])
        let tag = HTTPStatic.entityTag(for: text)
        #expect(tag.count == 34 && tag.hasPrefix("\"") && tag.hasSuffix("\""))
        #expect(HTTPStatic.entityTag(for: text, suffix: "-gz") != tag)
        #expect(HTTPStatic.entityTag(for: text + [0]) != tag)
    }

    @Test func sameOriginRule() {
        #expect(WebSocketHandshake.isSameOrigin("http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(WebSocketHandshake.isSameOrigin("https://Hub.Example", host: "hub.example"))
        #expect(!WebSocketHandshake.isSameOrigin("http://127.0.0.1:8080", host: "127.0.0.1:8081"))
        #expect(!WebSocketHandshake.isSameOrigin("http://127.0.0.1:8080", host: nil))
        #expect(!WebSocketHandshake.isSameOrigin("http://", host: ""))
        #expect(!WebSocketHandshake.isSameOrigin("ws://hub.example", host: "hub.example"))
        #expect(!WebSocketHandshake.isSameOrigin("http://hub.example.evil", host: "hub.example"))
        #expect(!WebSocketHandshake.isSameOrigin("null", host: "hub.example"))
    }
}
