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

/// One command: its name and arguments as bytes, exactly as sent (binary safe, no quoting or splitting).
public struct RedisCommand: Sendable, Hashable, CustomStringConvertible {
    /// The command name first, then its arguments.
    public var arguments: [[UInt8]]

    /// A command from byte arguments; the first is the command name.
    public init(arguments: [[UInt8]]) {
        precondition(!arguments.isEmpty, "a Redis command needs at least its name")
        self.arguments = arguments
    }

    /// A command from a name and arguments, each either text (sent as UTF-8) or bytes.
    public init(_ name: String, _ arguments: any RedisArgument...) {
        self.init(arguments: [Array(name.utf8)] + arguments.map(\.redisBytes))
    }

    /// A command from a name and an array of arguments.
    public init(_ name: String, arguments: [any RedisArgument]) {
        self.init(arguments: [Array(name.utf8)] + arguments.map(\.redisBytes))
    }

    /// The command name only: arguments may carry secrets (AUTH) or user data and are never described.
    public var description: String {
        "RedisCommand(\(String(decoding: arguments[0], as: UTF8.self).uppercased()), \(arguments.count - 1) arguments)"
    }

    /// The command in RESP: an array of bulk strings, appended to `buffer`.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "*"))
        RedisCommand.appendDecimal(arguments.count, to: &buffer)
        for argument in arguments {
            buffer.append(UInt8(ascii: "$"))
            RedisCommand.appendDecimal(argument.count, to: &buffer)
            buffer.append(contentsOf: argument)
            buffer.append(13)
            buffer.append(10)
        }
    }

    /// The number of bytes `encode(into:)` appends.
    public var encodedCount: Int {
        var count = 3 + RedisCommand.decimalCount(arguments.count)
        for argument in arguments { count += 5 + RedisCommand.decimalCount(argument.count) + argument.count }
        return count
    }

    private static func decimalCount(_ value: Int) -> Int {
        var n = 1
        var v = value
        while v >= 10 {
            v /= 10
            n += 1
        }
        return n
    }

    private static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: Array(String(value).utf8))
        buffer.append(13)
        buffer.append(10)
    }
}

/// A value usable as a command argument.
public protocol RedisArgument: Sendable {
    /// The argument's bytes on the wire.
    var redisBytes: [UInt8] { get }
}

extension String: RedisArgument {
    public var redisBytes: [UInt8] { Array(utf8) }
}

extension Substring: RedisArgument {
    public var redisBytes: [UInt8] { Array(utf8) }
}

extension Array: RedisArgument where Element == UInt8 {
    public var redisBytes: [UInt8] { self }
}

extension Int: RedisArgument {
    public var redisBytes: [UInt8] { Array(String(self).utf8) }
}

extension Int64: RedisArgument {
    public var redisBytes: [UInt8] { Array(String(self).utf8) }
}
