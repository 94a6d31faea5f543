//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// Which users are connected, and since when, as a pure state machine with an injected wall clock (the `now`
/// arguments). A node records the union of its own devices' connections (`local`); it also follows the other
/// nodes' devices to answer "connected since" for the open interval of a read.
public struct ActiveTimeTracker: Sendable {
    struct UserState: Sendable {
        var local = SmallIDSet()
        var remote = SmallIDSet()
        /// When the user's current connection (any node) began.
        var since: Date?
        /// The start of the part of the open local interval not yet taken for recording.
        var localFrom: Date?
    }

    private var users: [Int64: UserState] = [:]
    /// Finished local intervals not yet taken, oldest first.
    private var closed: [ActiveInterval] = []
    /// Most finished intervals kept waiting (the oldest are dropped past it, counted in `dropped`).
    public let maxPending: Int
    public private(set) var dropped = 0

    public init(maxPending: Int = 100_000) {
        self.maxPending = max(1, maxPending)
    }

    /// A device connected; `local` when this node serves it.
    public mutating func connect(userId: Int64, device: UInt64, local: Bool, now: Date) {
        var state = users.removeValue(forKey: userId) ?? UserState()  // out of the dictionary: no copy of its sets
        if state.local.isEmpty && state.remote.isEmpty { state.since = now }
        if local {
            if state.local.isEmpty { state.localFrom = now }
            state.local.insert(device)
        } else {
            state.remote.insert(device)
        }
        users[userId] = state
    }

    /// A device disconnected; the user's last local device closes its local interval.
    public mutating func disconnect(userId: Int64, device: UInt64, now: Date) {
        guard var state = users.removeValue(forKey: userId) else { return }
        if state.local.remove(device), state.local.isEmpty, let from = state.localFrom {
            if now > from { append(ActiveInterval(userId: userId, from: from, to: now)) }
            state.localFrom = nil
        } else {
            state.remote.remove(device)
        }
        users[userId] = state.local.isEmpty && state.remote.isEmpty ? nil : state
    }

    private mutating func append(_ interval: ActiveInterval) {
        closed.append(interval)
        if closed.count > maxPending {
            let excess = closed.count - maxPending
            closed.removeFirst(excess)
            dropped += excess
        }
    }

    /// Takes what is to be recorded: the finished intervals and every open local interval up to `now` (which then
    /// continues from `now`). Only `user`'s when given.
    public mutating func take(now: Date, user: Int64? = nil) -> [ActiveInterval] {
        var out: [ActiveInterval] = []
        if let user {
            out = closed.filter { $0.userId == user }
            closed.removeAll { $0.userId == user }
        } else {
            out = closed
            closed = []
        }
        for (id, state) in users where user == nil || id == user {
            guard let from = state.localFrom, now > from else { continue }
            out.append(ActiveInterval(userId: id, from: from, to: now))
            users[id]!.localFrom = now
        }
        return out
    }

    /// Puts back intervals whose recording failed (bounded like the others).
    public mutating func putBack(_ intervals: [ActiveInterval]) {
        for interval in intervals { append(interval) }
    }

    /// What a read adds to the stored time of a user: its finished intervals not yet recorded, and its open
    /// interval (any node) up to `now`.
    public func unrecorded(of userId: Int64, now: Date) -> [ActiveInterval] {
        var out = closed.filter { $0.userId == userId }
        if let since = users[userId]?.since, now > since {
            out.append(ActiveInterval(userId: userId, from: since, to: now))
        }
        return out
    }

    /// Finished intervals waiting to be taken.
    public var pendingCount: Int { closed.count }
    /// Users with a device on this node.
    public var localUserCount: Int { users.values.filter { !$0.local.isEmpty }.count }
}
