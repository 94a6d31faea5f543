//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL

/// The opening handshake of RFC 6455 section 4.
public enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a key: base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        input.withUnsafeBufferPointer { p in
            digest.withUnsafeMutableBufferPointer { d in
                _ = SHA1(p.baseAddress, p.count, d.baseAddress)
            }
        }
        return base64(digest)
    }

    /// Base64 through OpenSSL.
    static func base64(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: 4 * ((bytes.count + 2) / 3) + 1)
        let n = bytes.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in EVP_EncodeBlock(o.baseAddress, b.baseAddress, Int32(b.count)) }
        }
        return String(decoding: out[0..<Int(n)], as: UTF8.self)
    }

    /// Decoded length of a base64 string, or nil when it is not base64.
    static func base64DecodedLength(_ s: String) -> Int? {
        let b = Array(s.utf8)
        guard !b.isEmpty, b.count % 4 == 0 else { return nil }
        var padding = 0
        for (i, c) in b.enumerated() {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return nil }
            case UInt8(ascii: "="):
                guard i >= b.count - 2 else { return nil }
                padding += 1
            default: return nil
            }
        }
        return b.count / 4 * 3 - padding
    }

    /// Decides on an upgrade request whose path the caller has already routed.
    public static func serverResponse(
        for head: HTTPRequestHead,
        configuration: WebSocketHandshakeConfiguration
    ) -> HandshakeResult {
        guard head.method == "GET" else { return .reject(status: 405, headers: [("Allow", "GET")], reason: .notGet) }
        guard head.version.minor >= 1 else {
            return .reject(status: 400, headers: [], reason: .httpVersion)
        }
        guard head.headers.containsToken("websocket", in: "upgrade") else {
            return .reject(
                status: 426, headers: [("Upgrade", "websocket"), ("Connection", "Upgrade")], reason: .missingUpgrade)
        }
        guard head.headers.containsToken("upgrade", in: "connection") else {
            return .reject(
                status: 426, headers: [("Upgrade", "websocket"), ("Connection", "Upgrade")],
                reason: .missingConnectionUpgrade)
        }
        guard head.headers["sec-websocket-version"].map(trimOWS) == "13" else {
            return .reject(status: 426, headers: [("Sec-WebSocket-Version", "13")], reason: .unsupportedVersion)
        }
        guard let key = head.headers["sec-websocket-key"].map(trimOWS), base64DecodedLength(key) == 16 else {
            return .reject(status: 400, headers: [], reason: .badKey)
        }
        if let allowed = configuration.allowedOrigins {
            if let origin = head.headers["origin"] {
                guard
                    allowed.contains(where: { asciiCaseEqual($0, origin) })
                        || (configuration.allowSameOrigin && isSameOrigin(origin, host: head.headers["host"]))
                else {
                    return .reject(status: 403, headers: [], reason: .originNotAllowed)
                }
            } else if !configuration.allowNoOrigin {
                return .reject(status: 403, headers: [], reason: .originNotAllowed)
            }
        }
        var subprotocol: String? = nil
        let offered = head.headers.values(for: "sec-websocket-protocol").flatMap { $0.split(separator: ",") }
            .map { trimOWS($0) }
        for candidate in configuration.supportedSubprotocols where offered.contains(candidate) {
            subprotocol = candidate
            break
        }
        if subprotocol == nil && configuration.requireSubprotocol {
            return .reject(status: 400, headers: [], reason: .noAcceptableSubprotocol)
        }
        var deflate: PerMessageDeflateParameters? = nil
        if let config = configuration.permessageDeflate {
            let offers = head.headers.values(for: "sec-websocket-extensions")
            if !offers.isEmpty {
                deflate = PerMessageDeflateNegotiation.negotiate(offers: offers, configuration: config)
            }
        }
        var headers: [(String, String)] = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", acceptValue(forKey: key)),
        ]
        if let subprotocol { headers.append(("Sec-WebSocket-Protocol", subprotocol)) }
        if let deflate { headers.append(("Sec-WebSocket-Extensions", deflate.headerValue)) }
        return .accept(
            response: HTTPResponse.encode(status: 101, headers: headers), subprotocol: subprotocol, deflate: deflate)
    }

    /// Whether `origin` is `http://` or `https://` followed by exactly `host` (case-insensitive).
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host = host.map(trimOWS), !host.isEmpty else { return false }
        for scheme in ["http://", "https://"] where origin.utf8.count == scheme.utf8.count + host.utf8.count {
            if asciiCaseEqual(origin.prefix(scheme.count), scheme)
                && asciiCaseEqual(origin.dropFirst(scheme.count), host)
            {
                return true
            }
        }
        return false
    }

    /// 16 random bytes, base64: a `Sec-WebSocket-Key`.
    public static func makeKey() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, 16) }
        return base64(bytes)
    }

    /// The client's upgrade request.
    public static func clientRequest(
        host: String,
        path: String,
        key: String,
        subprotocols: [String],
        origin: String? = nil,
        offerDeflate: Bool = false,
        extraHeaders: [(String, String)] = []
    ) -> [UInt8] {
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !subprotocols.isEmpty { text += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n" }
        if let origin { text += "Origin: \(origin)\r\n" }
        if offerDeflate { text += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" }
        for (name, value) in extraHeaders { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Checks the server's answer to `clientRequest`.
    public static func validateServerResponse(
        _ head: HTTPResponseHead,
        key: String,
        offeredSubprotocols: [String] = [],
        offeredDeflate: Bool
    ) -> Result<ClientHandshakeOutcome, ClientHandshakeError> {
        guard head.status == 101 else { return .failure(.status(head.status)) }
        guard head.headers.containsToken("websocket", in: "upgrade"),
            head.headers.containsToken("upgrade", in: "connection")
        else { return .failure(.missingUpgrade) }
        guard head.headers["sec-websocket-accept"] == acceptValue(forKey: key) else { return .failure(.badAccept) }
        let subprotocol = head.headers["sec-websocket-protocol"]
        if let subprotocol, !offeredSubprotocols.contains(subprotocol) {
            return .failure(.unexpectedSubprotocol(subprotocol))
        }
        var deflate: PerMessageDeflateParameters? = nil
        if let ext = head.headers["sec-websocket-extensions"] {
            guard offeredDeflate else { return .failure(.unexpectedExtension(ext)) }
            var config = PerMessageDeflateConfiguration()
            config.serverMaxWindowBits = 15
            guard var params = PerMessageDeflateNegotiation.accept(offer: ext, configuration: config) else {
                return .failure(.unexpectedExtension(ext))
            }
            // accept() reads server_max_window_bits as a request; for the client it is the server's statement.
            params.clientMaxWindowBits = max(9, params.clientMaxWindowBits)
            deflate = params
        }
        return .success(ClientHandshakeOutcome(subprotocol: subprotocol, deflate: deflate))
    }
}
