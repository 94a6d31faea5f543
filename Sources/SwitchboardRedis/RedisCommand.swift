//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
