//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One RESP2 reply. Bulk strings are bytes (binary safe); simple strings and errors are text lines.
public enum RedisValue: Sendable, Hashable {
    /// A simple string (`+OK`).
    case simpleString(String)
    /// An error reply (`-ERR ...`); `send` throws it as `RedisError.server`, a pipeline returns it in place.
    case error(String)
    /// An integer (`:42`).
    case integer(Int64)
    /// A bulk string (`$3 abc`), any bytes.
    case bulk([UInt8])
    /// A null bulk string or null array (`$-1`, `*-1`).
    case null
    /// An array (`*2 ...`), possibly nested.
    case array([RedisValue])

    /// The bytes of a bulk or simple string; nil otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case .bulk(let b): return b
        case .simpleString(let s): return Array(s.utf8)
        default: return nil
        }
    }

    /// A bulk or simple string as UTF-8 text (invalid sequences repaired); nil otherwise.
    public var string: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// The integer of an integer reply; nil otherwise.
    public var integer: Int64? {
        if case .integer(let i) = self { return i }
        return nil
    }

    /// The elements of an array reply; nil otherwise.
    public var array: [RedisValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Whether this is a null reply.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
