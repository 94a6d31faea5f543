//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

/// Base64 helpers for tus ids and metadata.
enum Base64URL {
    /// 32 random bytes as unpadded base64url: 43 characters.
    static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return encode(bytes)
    }

    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var i = 0
        while i + 2 < bytes.count {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            out += [alphabet[n >> 18 & 63], alphabet[n >> 12 & 63], alphabet[n >> 6 & 63], alphabet[n & 63]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = Int(bytes[i]) << 16
            out += [alphabet[n >> 18 & 63], alphabet[n >> 12 & 63]]
        } else if rest == 2 {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8
            out += [alphabet[n >> 18 & 63], alphabet[n >> 12 & 63], alphabet[n >> 6 & 63]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` looks like an id made by ``randomID()``.
    static func isID(_ text: Substring) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                    || $0 == 0x5F
            }
    }

    /// Decodes standard base64 (padding optional), as tus metadata values are.
    static func decodeStandard(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for c in text.utf8 {
            let v: Int
            switch c {
            case 0x41...0x5A: v = Int(c) - 0x41
            case 0x61...0x7A: v = Int(c) - 0x61 + 26
            case 0x30...0x39: v = Int(c) - 0x30 + 52
            case 0x2B, 0x2D: v = 62
            case 0x2F, 0x5F: v = 63
            case 0x3D: continue
            default: return nil
            }
            buffer = buffer << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(buffer >> bits & 0xFF))
            }
        }
        return out
    }
}
