//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL

/// A session token: 256 random bits (`RAND_bytes`), given to the client as 43 base64url characters
/// without padding; only the SHA-256 of the 32 token bytes is stored, so a database leak reveals no
/// usable token.
public struct SessionToken: Sendable, CustomStringConvertible {
    /// What the client keeps.
    public let string: String
    /// SHA-256 of the 32 token bytes: what the database keeps.
    public let hash: [UInt8]

    /// Redacts the token.
    public var description: String { "SessionToken(<redacted>)" }

    /// A new random token.
    public static func generate() -> SessionToken {
        var bytes = [UInt8](repeating: 0, count: 32)
        precondition(RAND_bytes(&bytes, 32) == 1, "RAND_bytes failed")
        return SessionToken(string: base64url(bytes), hash: sha256(bytes))
    }

    /// The stored hash for a token string, or nil when it is not a well-formed token (not exactly 43
    /// characters of the base64url alphabet in canonical form).
    public static func hash(of token: String) -> [UInt8]? {
        guard let bytes = decodeBase64url(token), bytes.count == 32 else { return nil }
        return sha256(bytes)
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = SHA256(bytes, bytes.count, &out)
        return out
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func base64url(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((v >> UInt32(shift)) & 63)]) }
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let v = UInt32(bytes[i]) << 16 | (rest > 1 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int((v >> 18) & 63)])
            out.append(alphabet[Int((v >> 12) & 63)])
            if rest > 1 { out.append(alphabet[Int((v >> 6) & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decodeBase64url(_ s: String) -> [UInt8]? {
        var values: [UInt32] = []
        for c in s.utf8 {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt32(v))
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let chunk = values[i..<min(i + 4, values.count)]
            var v: UInt32 = 0
            for (k, x) in chunk.enumerated() { v |= x << UInt32(18 - 6 * k) }
            let produced = chunk.count - 1
            for k in 0..<produced { out.append(UInt8((v >> UInt32(16 - 8 * k)) & 0xFF)) }
            i += 4
        }
        // Canonical form only (unused low bits zero): re-encode and compare.
        return base64url(out) == s ? out : nil
    }
}
