//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Parses `Sec-WebSocket-Extensions` and picks the first acceptable permessage-deflate offer.
public enum PerMessageDeflateNegotiation {
    /// The parameters to accept, or nil when no offer is acceptable.
    public static func negotiate(
        offers headerValues: [String],
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        for value in headerValues {
            for offer in splitOutsideQuotes(value, separator: ",") {
                if let accepted = accept(offer: offer, configuration: configuration) { return accepted }
            }
        }
        return nil
    }

    static func accept(offer: String, configuration: PerMessageDeflateConfiguration) -> PerMessageDeflateParameters? {
        let parts = splitOutsideQuotes(offer, separator: ";").map { trimOWS($0) }
        guard let name = parts.first, asciiCaseEqual(name, "permessage-deflate") else { return nil }
        var result = PerMessageDeflateParameters()
        var seen = Set<String>()
        var clientWindowOffered = false
        var serverWindowRequested: Int? = nil
        var clientWindowRequested: Int? = nil
        for part in parts.dropFirst() {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { trimOWS($0) }
            // An empty parameter (`permessage-deflate;;`) or a missing name (`=15`) makes the offer malformed.
            guard let name = kv.first, !name.isEmpty else { return nil }
            let key = name.lowercased()
            var value: String? = kv.count > 1 ? kv[1] : nil
            if let v = value, v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 {
                value = String(v.dropFirst().dropLast())
            }
            guard seen.insert(key).inserted else { return nil }  // duplicate parameter: decline the offer
            switch key {
            case "server_no_context_takeover":
                guard value == nil else { return nil }
                result.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { return nil }
                result.clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let v = value, let bits = parseBits(v) else { return nil }
                serverWindowRequested = bits
            case "client_max_window_bits":
                if let v = value {
                    guard let bits = parseBits(v) else { return nil }
                    clientWindowRequested = bits
                }
                clientWindowOffered = true
            default:
                return nil
            }
        }
        if configuration.serverNoContextTakeover { result.serverNoContextTakeover = true }
        if configuration.requestClientNoContextTakeover { result.clientNoContextTakeover = true }
        var serverBits = min(configuration.serverMaxWindowBits, 15)
        if let requested = serverWindowRequested { serverBits = min(serverBits, requested) }
        // zlib cannot produce a raw deflate stream with an 8-bit window (deflateInit2 refuses -8); a
        // 9-bit window would break the client's 8-bit limit, so such an offer is declined.
        if serverBits < 9 { return nil }
        result.serverMaxWindowBits = serverBits
        // We inflate with a 15-bit window always, which accepts any client window; we only state the
        // client's window if the client offered the parameter and asked for less.
        if let requested = clientWindowRequested, clientWindowOffered { result.clientMaxWindowBits = requested }
        return result
    }

    static func parseBits(_ s: String) -> Int? {
        guard s.utf8.count <= 2, s.utf8.allSatisfy(isDigit), let bits = Int(s), (8...15).contains(bits),
            !s.hasPrefix("0")
        else { return nil }
        return bits
    }

    static func splitOutsideQuotes(_ s: String, separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for c in s {
            if c == "\"" { quoted.toggle() }
            if c == separator && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        return parts
    }
}
