//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import COpenSSL

/// A call's identifier: a caller-supplied string (for example a UUID sent with the invite) or one
/// the registry generates (a random version-4 UUID in lowercase).
public struct CallID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The identifier as it appears on the wire.
    public let rawValue: String

    /// Wraps an identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static func < (lhs: CallID, rhs: CallID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { self.rawValue }

    /// Longest call id in bytes.
    public static let maxBytes = 64

    /// Whether `text` may be a call id on the wire: 1 to 64 bytes of printable ASCII without space
    /// (`!` through `~`), so no control character (U+0000 included) ever reaches the database or a log.
    public static func isValid(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            guard (0x21...0x7E).contains(byte) else { return false }
            count += 1
            if count > maxBytes { return false }
        }
        return count > 0
    }

    /// A random version-4 UUID from OpenSSL's CSPRNG, in lowercase.
    public static func random() -> CallID {
        var bytes = [UInt8](repeating: 0, count: 16)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, 16) }
        precondition(ok == 1, "RAND_bytes failed")
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append("-") }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return CallID(text)
    }
}
