//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardWebSocket

func parse(_ text: String, limits: HTTPParserLimits = HTTPParserLimits(), chunk: Int = Int.max) -> HTTPParseResult<
    HTTPRequestHead
> {
    var parser = HTTPHeadParser(limits: limits)
    let bytes = Array(text.utf8)
    var offset = 0
    var last: HTTPParseResult<HTTPRequestHead> = .needMoreData
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        last = bytes[offset..<end].withUnsafeBytes { parser.feed($0) }
        if case .needMoreData = last { offset = end } else { return last }
    }
    return last
}

func status(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> Int? {
    if case .error(let e) = parse(text, limits: limits) { return e.status }
    return nil
}

@Suite struct HTTPHeadParserTests {
    @Test func parsesAGetByteAtATime() throws {
        let text = "GET /ws?x=1 HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n\r\n"
        guard case .head(let head, let consumed) = parse(text, chunk: 1) else { Issue.record("no head"); return }
        #expect(consumed == 1)
        #expect(head.method == "GET" && head.path == "/ws" && head.query == "x=1")
        #expect(head.headers["HOST"] == "a")
        #expect(head.headers.containsToken("upgrade", in: "connection"))
        #expect(head.keepAlive)
    }

    @Test func consumedLeavesTheFollowingBytes() {
        var parser = HTTPHeadParser()
        let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\n".utf8)
        guard case .head(_, let consumed) = bytes.withUnsafeBytes({ parser.feed($0) }) else {
            Issue.record("no head"); return
        }
        #expect(consumed == 27)
        parser.reset()
        #expect(bytes[consumed...].withUnsafeBytes({ parser.feed($0) }).isNeedMore)
    }

    @Test func keepAliveRules() {
        if case .head(let h, _) = parse("GET / HTTP/1.0\r\n\r\n") { #expect(!h.keepAlive) } else { Issue.record("1.0") }
        if case .head(let h, _) = parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") {
            #expect(h.keepAlive)
        } else {
            Issue.record("1.0 ka")
        }
        if case .head(let h, _) = parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n") {
            #expect(!h.keepAlive)
        } else {
            Issue.record("close")
        }
    }

    @Test func refusals() {
        #expect(status("GET / HTTP/1.1\nHost: a\n\n") == 400)  // bare LF
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost : a\r\n\r\n") == 400)
        #expect(status("G(T / HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\n\r\n") == 400)  // no Host
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n") == 400)
        // Lengths past Int (or with 19+ digits) are refused, never converted with a trap.
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 9223372036854775807\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999999\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -9223372036854775808\r\n\r\n") == 400)
        #expect(status("GET / HTTP/3.0\r\nHost: a\r\n\r\n") == 505)
        let small = HTTPParserLimits(maxRequestLineLength: 20, maxHeaderBytes: 64, maxHeaderCount: 2)
        #expect(status("GET /\(String(repeating: "a", count: 30)) HTTP/1.1\r\n\r\n", limits: small) == 414)
        #expect(status("GET / HTTP/1.1\r\nHost: \(String(repeating: "a", count: 80))\r\n\r\n", limits: small) == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n", limits: small) == 431)
    }

    @Test func responseEncoderAndParser() {
        let bytes = HTTPResponse.encode(status: 404, headers: [("X", "y")], body: Array("no".utf8))
        #expect(
            String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 404 Not Found\r\nX: y\r\nContent-Length: 2\r\n\r\nno")
        var parser = HTTPResponseHeadParser()
        guard case .head(let head, let consumed) = bytes.withUnsafeBytes({ parser.feed($0) }) else {
            Issue.record("no head"); return
        }
        #expect(head.status == 404 && head.headers["x"] == "y" && consumed == bytes.count - 2)
    }
}

extension HTTPParseResult {
    var isNeedMore: Bool { if case .needMoreData = self { return true } else { return false } }
}
