//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The messages nodes of a cluster send each other over the bus (Redis pub/sub, `docs/cluster.md`): a binary
/// format, versioned by its first byte, decoded defensively (a malformed message is nil, never a crash; a fuzz
/// target checks it). Connections are the 64-bit connection ids, whose high bits name their node.
///
/// Layout: `version (1) | kind (1) | body`; integers little-endian; byte strings as `u32 length | bytes`.
public enum ClusterWire: Sendable, Equatable {
    /// Deliveries for connections of the receiving node: one bus message per batch and node.
    case deliver([Group])
    /// Changes of the sending node's device directory, numbered per node from `seq` (the first's; gapless: a gap
    /// means a lost message, and the receiver reloads that node's snapshot). A node sends its changes in batches.
    case directory(node: UInt32, seq: UInt64, [DirectoryChange])
    /// A change of durable data that other nodes keep in memory (sent to every node by `node`).
    case notice(node: UInt32, Notice)
    /// `node` has applied the receiving node's directory changes up to `seq` (sent to the node whose changes they
    /// are: a held `authenticate` reply waits for every live node's, `docs/cluster.md`).
    case directoryApplied(node: UInt32, seq: UInt64)

    /// A change other nodes' caches must follow.
    public enum Notice: Sendable, Equatable {
        /// Two users became friends or stopped being friends (presence keeps friend lists).
        case friendship(Int64, Int64, friends: Bool)
        /// A user changed its display name (presence and calls keep names).
        case renamed(userId: Int64, name: String)
        /// A session was revoked: every node closes its own connections of it (whether or not the revoking
        /// node's directory knew them yet).
        case revoked(sessionId: Int64, userId: Int64)
        /// An account was suspended (moderation): every node closes its own connections of it (4004).
        case suspended(userId: Int64)
        /// An account was deleted: every node tells its connections of that user (`account.deleted`) and closes
        /// them with 4005.
        case accountDeleted(userId: Int64)
    }
    /// A call request of a connection of the sending node, for the call coordinator (`docs/cluster.md`, "Calls
    /// across nodes"): the device (`connection`, `userId`, `sessionId`), the request's id (its JSON) and op, and
    /// the command (the server's `CallCommand`, JSON). The answer comes back as a `.reply` item.
    case callRequest(
        connection: UInt64, userId: Int64, sessionId: Int64, requestId: [UInt8], op: String, command: [UInt8])
    /// A batch of resolved social changes (live pages, `docs/social.md`), broadcast by `node`: every node routes it
    /// to its own connections. The payload is the server's `SocialRouted` batch.
    case social(node: UInt32, payload: [UInt8])

    /// One item and the connections it goes to.
    public struct Group: Sendable, Equatable {
        public var item: Item
        public var connections: [UInt64]
        public init(item: Item, connections: [UInt64]) {
            self.item = item
            self.connections = connections
        }
    }

    /// What a connection is given (as the server's `OutboxItem`, without the local-only replies).
    public enum Item: Sendable, Equatable {
        /// A stored message: its conversation, seq and `message` event JSON.
        case message(conversationId: Int64, seq: Int64, payload: [UInt8])
        /// A presence or typing event, conflated per `source`.
        case ephemeral([UInt8], source: String)
        /// An event (JSON).
        case event([UInt8])
        /// The connection's session was revoked.
        case revoke
        /// The connection may have missed a delivery (a publish addressed to it failed): it is closed with 1012 so
        /// that its client reconnects and resumes (`docs/cluster.md`).
        case reconnect
        /// The answer to a request the connection's node forwarded (calls): the request id (its JSON), the op, and
        /// the `ok` JSON (`success`) or the error object's JSON.
        case reply(requestId: [UInt8], op: String, success: Bool, body: [UInt8])

        /// Bytes of its payloads (to size an encoding).
        var payloadCount: Int {
            switch self {
            case .message(_, _, let payload), .event(let payload): payload.count
            case .ephemeral(let payload, let source): payload.count + source.utf8.count
            case .revoke, .reconnect: 0
            case .reply(let id, let op, _, let body): id.count + op.utf8.count + body.count
            }
        }
    }

    /// A device appeared, went or changed its presence status on the sending node.
    public enum DirectoryChange: Sendable, Equatable {
        case attached(connection: UInt64, userId: Int64, sessionId: Int64)
        case detached(connection: UInt64, userId: Int64)
        /// `online` or `away` (the `PresenceStatus` raw value).
        case status(connection: UInt64, userId: Int64, status: String)
        /// No change: the node wrote its whole directory again (after Redis lost it); a node whose copy is
        /// older sees a gap and reloads it.
        case sync
    }

    /// The current version.
    public static let version: UInt8 = 1
    /// Largest count of anything in a message (groups, connections), beyond which it is malformed.
    public static let maxCount = 1 << 20

    // MARK: encoding

    public func encoded() -> [UInt8] {
        var w = ClusterWireWriter()
        w.byte(Self.version)
        switch self {
        case .deliver(let groups):
            w.out.reserveCapacity(groups.reduce(16) { $0 + 64 + $1.connections.count * 8 + $1.item.payloadCount })
            w.byte(1)
            w.u32(UInt32(groups.count))
            for group in groups {
                switch group.item {
                case .message(let conversationId, let seq, let payload):
                    w.byte(1)
                    w.i64(conversationId)
                    w.i64(seq)
                    w.bytes(payload)
                case .ephemeral(let bytes, let source):
                    w.byte(2)
                    w.bytes(bytes)
                    w.bytes(Array(source.utf8))
                case .event(let bytes):
                    w.byte(3)
                    w.bytes(bytes)
                case .revoke:
                    w.byte(4)
                case .reconnect:
                    w.byte(6)
                case .reply(let requestId, let op, let success, let body):
                    w.byte(5)
                    w.bytes(requestId)
                    w.bytes(Array(op.utf8))
                    w.byte(success ? 1 : 0)
                    w.bytes(body)
                }
                w.u32(UInt32(group.connections.count))
                w.u64s(group.connections)
            }
        case .notice(let node, let notice):
            w.byte(9)
            w.u32(node)
            switch notice {
            case .friendship(let a, let b, let friends):
                w.byte(1)
                w.i64(a)
                w.i64(b)
                w.byte(friends ? 1 : 0)
            case .renamed(let userId, let name):
                w.byte(2)
                w.i64(userId)
                w.bytes(Array(name.utf8))
            case .revoked(let sessionId, let userId):
                w.byte(3)
                w.i64(sessionId)
                w.i64(userId)
            case .suspended(let userId):
                w.byte(8)
                w.i64(userId)
            case .accountDeleted(let userId):
                w.byte(4)
                w.i64(userId)
            }
        case .directory(let node, let seq, let changes):
            w.byte(2)
            w.u32(node)
            w.u64(seq)
            w.u32(UInt32(changes.count))
            for change in changes {
                switch change {
                case .attached(let connection, let userId, let sessionId):
                    w.byte(1)
                    w.u64(connection)
                    w.i64(userId)
                    w.i64(sessionId)
                case .detached(let connection, let userId):
                    w.byte(2)
                    w.u64(connection)
                    w.i64(userId)
                case .status(let connection, let userId, let status):
                    w.byte(3)
                    w.u64(connection)
                    w.i64(userId)
                    w.bytes(Array(status.utf8))
                case .sync:
                    w.byte(4)
                }
            }
        case .callRequest(let connection, let userId, let sessionId, let requestId, let op, let command):
            w.byte(3)
            w.u64(connection)
            w.i64(userId)
            w.i64(sessionId)
            w.bytes(requestId)
            w.bytes(Array(op.utf8))
            w.bytes(command)
        case .directoryApplied(let node, let seq):
            w.byte(4)
            w.u32(node)
            w.u64(seq)
        case .social(let node, let payload):
            w.byte(5)
            w.u32(node)
            w.bytes(payload)
        }
        return w.out
    }

    // MARK: decoding

    /// The message in `bytes`, or nil when it is malformed (or of another version).
    public static func decode(_ bytes: [UInt8]) -> ClusterWire? {
        bytes.withUnsafeBufferPointer { buffer in
            var r = ClusterWireReader(buffer)
            guard r.byte() == version, let kind = r.byte() else { return nil }
            let message: ClusterWire
            switch kind {
            case 1:
                guard let count = r.count() else { return nil }
                var groups: [Group] = []
                groups.reserveCapacity(min(count, 1024))
                for _ in 0..<count {
                    guard let tag = r.byte() else { return nil }
                    let item: Item
                    switch tag {
                    case 1:
                        guard let c = r.i64(), let s = r.i64(), let payload = r.bytes() else { return nil }
                        item = .message(conversationId: c, seq: s, payload: payload)
                    case 2:
                        guard let payload = r.bytes(), let source = r.string() else { return nil }
                        item = .ephemeral(payload, source: source)
                    case 3:
                        guard let payload = r.bytes() else { return nil }
                        item = .event(payload)
                    case 4: item = .revoke
                    case 6: item = .reconnect
                    case 5:
                        guard let id = r.bytes(), let op = r.string(), let flag = r.byte(), flag <= 1,
                            let body = r.bytes()
                        else {
                            return nil
                        }
                        item = .reply(requestId: id, op: op, success: flag == 1, body: body)
                    default: return nil
                    }
                    guard let n = r.count(), r.remaining >= n * 8 else { return nil }
                    let connections = r.u64s(n)
                    groups.append(Group(item: item, connections: connections))
                }
                message = .deliver(groups)
            case 2:
                guard let node = r.u32(), let seq = r.u64(), let count = r.count(), count >= 1 else { return nil }
                var changes: [DirectoryChange] = []
                changes.reserveCapacity(min(count, 1024))
                for _ in 0..<count {
                    guard let tag = r.byte() else { return nil }
                    let change: DirectoryChange
                    switch tag {
                    case 1:
                        guard let c = r.u64(), let u = r.i64(), let s = r.i64() else { return nil }
                        change = .attached(connection: c, userId: u, sessionId: s)
                    case 2:
                        guard let c = r.u64(), let u = r.i64() else { return nil }
                        change = .detached(connection: c, userId: u)
                    case 3:
                        guard let c = r.u64(), let u = r.i64(), let status = r.string() else { return nil }
                        change = .status(connection: c, userId: u, status: status)
                    case 4: change = .sync
                    default: return nil
                    }
                    changes.append(change)
                }
                message = .directory(node: node, seq: seq, changes)
            case 9:
                guard let node = r.u32(), let tag = r.byte() else { return nil }
                switch tag {
                case 1:
                    guard let a = r.i64(), let b = r.i64(), let f = r.byte(), f <= 1 else { return nil }
                    message = .notice(node: node, .friendship(a, b, friends: f == 1))
                case 2:
                    guard let u = r.i64(), let name = r.string() else { return nil }
                    message = .notice(node: node, .renamed(userId: u, name: name))
                case 3:
                    guard let s = r.i64(), let u = r.i64() else { return nil }
                    message = .notice(node: node, .revoked(sessionId: s, userId: u))
                case 8:
                    guard let u = r.i64() else { return nil }
                    message = .notice(node: node, .suspended(userId: u))
                case 4:
                    guard let u = r.i64() else { return nil }
                    message = .notice(node: node, .accountDeleted(userId: u))
                default: return nil
                }
            case 3:
                guard let c = r.u64(), let u = r.i64(), let s = r.i64(), let id = r.bytes(), let op = r.string(),
                    let command = r.bytes()
                else { return nil }
                message = .callRequest(connection: c, userId: u, sessionId: s, requestId: id, op: op, command: command)
            case 4:
                guard let node = r.u32(), let seq = r.u64() else { return nil }
                message = .directoryApplied(node: node, seq: seq)
            case 5:
                guard let node = r.u32(), let payload = r.bytes() else { return nil }
                message = .social(node: node, payload: payload)
            default: return nil
            }
            return r.remaining == 0 ? message : nil
        }
    }
}
