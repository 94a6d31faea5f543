//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A Lua script run with `EVALSHA`, its SHA-1 computed once; `RedisClient.evaluate` falls back to `EVAL`.
public struct RedisScript: Sendable, Hashable {
    /// The Lua source.
    public let source: String
    /// The script's SHA-1 in lowercase hex, as `SCRIPT LOAD` returns it.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        self.sha1 = redisSHA1Hex(Array(source.utf8))
    }

    func command(sha: Bool, keys: [[UInt8]], arguments: [[UInt8]]) -> RedisCommand {
        var args: [[UInt8]] = [Array((sha ? "EVALSHA" : "EVAL").utf8), Array((sha ? sha1 : source).utf8)]
        args.append(Array(String(keys.count).utf8))
        args.append(contentsOf: keys)
        args.append(contentsOf: arguments)
        return RedisCommand(arguments: args)
    }
}
