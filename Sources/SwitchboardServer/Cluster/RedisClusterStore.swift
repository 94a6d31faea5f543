//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardRedis

/// The cluster's shared state in Redis. Every call blocks the caller (the directory's queue, never a loop) until
/// Redis answers or the client's command timeout.
final class RedisClusterStore: ClusterStore {
    let client: RedisClient
    /// Where replies land while the caller waits (never the caller's queue).
    private let replies = DispatchQueue(label: "switchboard.cluster.store", attributes: .concurrent)

    init(client: RedisClient) { self.client = client }

    struct UnexpectedReply: Error, CustomStringConvertible {
        let what: String
        var description: String { "unexpected Redis reply to \(what)" }
    }

    /// Starts a request with a completion and waits for it (on the caller's queue, never a loop; the completion
    /// runs on `replies`).
    private func waitFor<T: Sendable>(_ start: (@escaping @Sendable (Result<T, RedisError>) -> Void) -> Void) throws
        -> T
    {
        let done = DispatchSemaphore(value: 0)
        let box = Box<T>()
        start { result in
            box.result = result
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    private final class Box<T: Sendable>: @unchecked Sendable {
        // @unchecked Sendable: written once by the reply queue before `done.signal()`, read after `done.wait()`.
        var result: Result<T, RedisError>?
    }

    private func run(_ commands: [RedisCommand]) throws -> [RedisValue] {
        let values = try waitFor { client.pipeline(commands, queue: replies, completion: $0) }
        for value in values { if case .error(let message) = value { throw RedisError.server(message) } }
        return values
    }

    private func evaluate(_ script: RedisScript, keys: [String], arguments: [[UInt8]]) throws -> RedisValue {
        try waitFor {
            client.evaluate(
                script, keys: keys.map { Array($0.utf8) }, arguments: arguments, queue: replies, completion: $0)
        }
    }

    static let claimScript = RedisScript(
        """
        local holder = redis.call('GET', KEYS[1])
        if not holder then
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          return tonumber(ARGV[1])
        end
        if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        return tonumber(holder)
        """)
    static let releaseScript = RedisScript(
        """
        if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
        return 0
        """)
    static let saveCallsScript = RedisScript(
        """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        redis.call('SET', KEYS[2], ARGV[2])
        return 1
        """)

    func claimCoordinator(node: UInt32, ttlMilliseconds: Int) throws -> UInt32 {
        let value = try evaluate(
            Self.claimScript, keys: [RedisClusterKeys.coordinator],
            arguments: [Array(String(node).utf8), Array(String(ttlMilliseconds).utf8)])
        guard let holder = value.integer, let number = UInt32(exactly: holder) else {
            throw UnexpectedReply(what: "the lease claim")
        }
        return number
    }

    func releaseCoordinator(node: UInt32) throws {
        _ = try evaluate(
            Self.releaseScript, keys: [RedisClusterKeys.coordinator], arguments: [Array(String(node).utf8)])
    }

    func saveLiveCalls(node: UInt32, summary: [UInt8]) throws -> Bool {
        let value = try evaluate(
            Self.saveCallsScript, keys: [RedisClusterKeys.coordinator, RedisClusterKeys.liveCalls],
            arguments: [Array(String(node).utf8), summary])
        return value.integer == 1
    }

    func liveCalls() throws -> [UInt8]? {
        let value = try run([RedisCommand("GET", RedisClusterKeys.liveCalls)])[0]
        return value == .null ? nil : value.bytes
    }

    func allocateNode() throws -> UInt32 {
        for _ in 0..<100 {
            guard let n = try run([RedisCommand("INCR", RedisClusterKeys.nodeSeq)])[0].integer else {
                throw UnexpectedReply(what: "INCR")
            }
            let node = UInt32(truncatingIfNeeded: (n - 1) % Int64((1 << 24) - 1) + 1)
            // Taken only if no live node has it (a heartbeat key with NX).
            let reply = try run([RedisCommand("SET", RedisClusterKeys.heartbeat(node), "starting", "NX", "PX", "5000")]
            )[0]
            if reply != .null { return node }
        }
        throw UnexpectedReply(what: "node allocation (100 numbers taken)")
    }

    func heartbeat(node: UInt32, ttlMilliseconds: Int) throws -> Bool {
        let values = try run([
            RedisCommand("SET", RedisClusterKeys.heartbeat(node), "alive", "PX", String(ttlMilliseconds)),
            RedisCommand("SADD", RedisClusterKeys.nodes, String(node)),
        ])
        return values[1].integer == 1
    }

    func nodes() throws -> (live: Set<UInt32>, dead: Set<UInt32>) {
        guard let members = try run([RedisCommand("SMEMBERS", RedisClusterKeys.nodes)])[0].array else {
            throw UnexpectedReply(what: "SMEMBERS")
        }
        let ids = members.compactMap { $0.string.flatMap { UInt32($0) } }
        guard !ids.isEmpty else { return ([], []) }
        guard
            let beats = try run([RedisCommand("MGET", arguments: ids.map { RedisClusterKeys.heartbeat($0) })])[0].array,
            beats.count == ids.count
        else { throw UnexpectedReply(what: "MGET") }
        var live = Set<UInt32>()
        var dead = Set<UInt32>()
        for (id, beat) in zip(ids, beats) {
            if beat == .null { dead.insert(id) } else { live.insert(id) }
        }
        return (live, dead)
    }

    func forget(node: UInt32) throws {
        _ = try run([
            RedisCommand("SREM", RedisClusterKeys.nodes, String(node)),
            RedisCommand("DEL", RedisClusterKeys.directory(node)),
        ])
    }

    func record(
        node: UInt32, lastSeq: UInt64, changes: [(ClusterWire.DirectoryChange, DirectoryEntry?)], message: [UInt8]
    ) throws {
        let key = RedisClusterKeys.directory(node)
        var commands = [RedisCommand("MULTI")]
        for (change, entry) in changes {
            switch change {
            case .attached(let c, _, _), .status(let c, _, _):
                if let entry { commands.append(RedisCommand("HSET", key, "c:\(c)", Self.value(entry))) }
            case .detached(let c, _): commands.append(RedisCommand("HDEL", key, "c:\(c)"))
            case .sync: break
            }
        }
        commands.append(RedisCommand("HSET", key, "seq", String(lastSeq)))
        commands.append(RedisCommand("EXEC"))
        // After the changes, on the same connection: a node that reads the snapshot after this message has them.
        commands.append(RedisCommand("PUBLISH", RedisClusterKeys.broadcast, message))
        _ = try run(commands)
    }

    private static func value(_ d: DirectoryEntry) -> String { "\(d.userId):\(d.sessionId):\(d.status)" }

    func replace(node: UInt32, seq: UInt64, devices: [DirectoryEntry]) throws {
        let key = RedisClusterKeys.directory(node)
        var fields: [any RedisArgument] = [key, "seq", String(seq)]
        for d in devices {
            fields.append("c:\(d.connection)")
            fields.append(Self.value(d))
        }
        _ = try run([
            RedisCommand("MULTI"), RedisCommand("DEL", key), RedisCommand("HSET", arguments: fields),
            RedisCommand("EXEC"),
        ])
    }

    func snapshot(node: UInt32) throws -> (seq: UInt64, devices: [DirectoryEntry]) {
        guard let flat = try run([RedisCommand("HGETALL", RedisClusterKeys.directory(node))])[0].array else {
            throw UnexpectedReply(what: "HGETALL")
        }
        var seq: UInt64 = 0
        var devices: [DirectoryEntry] = []
        var i = 0
        while i + 1 < flat.count {
            defer { i += 2 }
            guard let field = flat[i].string, let value = flat[i + 1].string else { continue }
            if field == "seq" {
                seq = UInt64(value) ?? 0
                continue
            }
            let parts = value.split(separator: ":")
            guard field.hasPrefix("c:"), let c = UInt64(field.dropFirst(2)), parts.count == 3, let u = Int64(parts[0]),
                let s = Int64(parts[1])
            else { continue }
            devices.append(DirectoryEntry(connection: c, userId: u, sessionId: s, status: String(parts[2])))
        }
        return (seq, devices)
    }
}
