//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardWebSocket

func head(_ text: String) -> HTTPRequestHead {
    var parser = HTTPHeadParser()
    guard case .head(let h, _) = Array(text.utf8).withUnsafeBytes({ parser.feed($0) }) else { fatalError("bad head") }
    return h
}

func upgrade(_ extra: String = "", key: String = "dGhlIHNhbXBsZSBub25jZQ==", version: String = "13") -> HTTPRequestHead
{
    head(
        "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: \(version)\r\n\(extra)\r\n"
    )
}

@Suite struct WebSocketHandshakeTests {
    @Test func rfc6455AcceptValue() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func acceptsWithSubprotocolAndDeflate() {
        var config = WebSocketHandshakeConfiguration()
        config.supportedSubprotocols = ["switchboard.v1"]
        let result = WebSocketHandshake.serverResponse(
            for: upgrade(
                "Sec-WebSocket-Protocol: x, switchboard.v1\r\n"
                    + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
            ),
            configuration: config)
        guard case .accept(let response, let sub, let deflate) = result else { Issue.record("rejected"); return }
        let text = String(decoding: response, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(sub == "switchboard.v1")
        #expect(deflate == PerMessageDeflateParameters())
    }

    @Test func failureReasons() {
        let config = WebSocketHandshakeConfiguration()
        func reject(_ h: HTTPRequestHead, _ c: WebSocketHandshakeConfiguration = WebSocketHandshakeConfiguration()) -> (
            Int, [(String, String)], HandshakeFailureReason
        )? {
            if case .reject(let s, let headers, let r) = WebSocketHandshake.serverResponse(for: h, configuration: c) {
                return (s, headers, r)
            }
            return nil
        }
        #expect(reject(upgrade(key: "abc"))?.2 == .badKey)
        #expect(reject(upgrade(key: "abc"))?.0 == 400)
        let version = reject(upgrade(version: "8"))
        #expect(version?.0 == 426 && version?.2 == .unsupportedVersion)
        #expect(version?.1.contains(where: { $0.0 == "Sec-WebSocket-Version" && $0.1 == "13" }) == true)
        #expect(reject(head("GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n\r\n"))?.2 == .missingUpgrade)
        #expect(
            reject(head("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n"))?.2 == .missingConnectionUpgrade)
        #expect(reject(head("POST /ws HTTP/1.1\r\nHost: a\r\n\r\n"))?.0 == 405)
        var origins = config
        origins.allowedOrigins = ["https://ok.example"]
        #expect(reject(upgrade("Origin: https://bad.example\r\n"), origins)?.0 == 403)
        #expect(reject(upgrade("Origin: https://OK.example\r\n"), origins) == nil)
        var required = config
        required.supportedSubprotocols = ["switchboard.v1"]
        required.requireSubprotocol = true
        #expect(reject(upgrade("Sec-WebSocket-Protocol: other\r\n"), required)?.2 == .noAcceptableSubprotocol)
    }

    @Test func deflateNegotiation() {
        let config = PerMessageDeflateConfiguration()
        let window8 = PerMessageDeflateNegotiation.negotiate(
            offers: ["permessage-deflate; server_max_window_bits=8"], configuration: config)
        #expect(window8 == nil)
        let fallback = PerMessageDeflateNegotiation.negotiate(
            offers: ["permessage-deflate; server_max_window_bits=8, permessage-deflate; server_no_context_takeover"],
            configuration: config)
        #expect(fallback?.serverNoContextTakeover == true)
        let window10 = PerMessageDeflateNegotiation.negotiate(
            offers: ["permessage-deflate; server_max_window_bits=10; client_max_window_bits=12"], configuration: config)
        #expect(window10?.serverMaxWindowBits == 10 && window10?.clientMaxWindowBits == 12)
        #expect(window10?.headerValue == "permessage-deflate; server_max_window_bits=10; client_max_window_bits=12")
        #expect(
            PerMessageDeflateNegotiation.negotiate(offers: ["permessage-deflate; foo"], configuration: config) == nil)
        // Found by fuzz/HTTPHeadFuzz: empty parameters used to trap.
        #expect(
            PerMessageDeflateNegotiation.negotiate(
                offers: ["permessage-deflate;;", "permessage-deflate; =15"], configuration: config) == nil)
        #expect(
            PerMessageDeflateNegotiation.negotiate(
                offers: ["permessage-deflate; server_max_window_bits="], configuration: config) == nil)
        #expect(
            PerMessageDeflateNegotiation.negotiate(
                offers: ["permessage-deflate; server_no_context_takeover; server_no_context_takeover"],
                configuration: config) == nil)
    }

    @Test func clientRoundTrip() {
        let key = WebSocketHandshake.makeKey()
        #expect(WebSocketHandshake.base64DecodedLength(key) == 16)
        let request = WebSocketHandshake.clientRequest(
            host: "a", path: "/ws", key: key, subprotocols: ["switchboard.v1"], offerDeflate: true)
        var parser = HTTPHeadParser()
        guard case .head(let h, _) = request.withUnsafeBytes({ parser.feed($0) }) else {
            Issue.record("bad request"); return
        }
        var config = WebSocketHandshakeConfiguration()
        config.supportedSubprotocols = ["switchboard.v1"]
        guard case .accept(let response, _, _) = WebSocketHandshake.serverResponse(for: h, configuration: config) else {
            Issue.record("rejected"); return
        }
        var responseParser = HTTPResponseHeadParser()
        guard case .head(let r, _) = response.withUnsafeBytes({ responseParser.feed($0) }) else {
            Issue.record("bad response"); return
        }
        let outcome = WebSocketHandshake.validateServerResponse(
            r, key: key, offeredSubprotocols: ["switchboard.v1"], offeredDeflate: true)
        guard case .success(let o) = outcome else { Issue.record("\(outcome)"); return }
        #expect(o.subprotocol == "switchboard.v1")
        #expect(o.deflate != nil)
        #expect(
            WebSocketHandshake.validateServerResponse(r, key: WebSocketHandshake.makeKey(), offeredDeflate: true)
                == .failure(.badAccept))
    }
}

extension Result where Success == ClientHandshakeOutcome, Failure == ClientHandshakeError {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.failure(let a), .failure(let b)): return a == b
        default: return false
        }
    }
}
