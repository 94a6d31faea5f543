//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
