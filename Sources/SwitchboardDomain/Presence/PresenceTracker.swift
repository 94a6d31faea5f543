//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Presence of every user with devices, as a pure state machine with an injected monotonic clock
/// (nanoseconds).
///
/// A user's presence is the most available status of its devices. When its last device goes, the user
/// stays at its last status for `grace` nanoseconds, so a quick reconnect does not flap; only a `tick` at or
/// after that deadline publishes `offline`. Each input returns the published changes.
public struct PresenceTracker: Sendable {
    /// A published change of a user's presence.
    public struct Change: Sendable, Equatable {
        public var userId: Int64
        public var status: PresenceStatus
        public init(userId: Int64, status: PresenceStatus) {
            self.userId = userId
            self.status = status
        }
    }

    struct UserState: Sendable {
        var devices = SmallDeviceMap<PresenceStatus>()
        var published: PresenceStatus = .offline
        /// Set while the user has no device but is still published as available.
        var offlineAt: UInt64?
    }

    /// Nanoseconds a user without devices still counts as available.
    public let grace: UInt64
    private var users: [Int64: UserState] = [:]
    /// Pending offline deadlines (user ids by deadline), in order of `at` from `head` on; stale entries (the user
    /// came back, or left again later) are skipped. Kept sorted and with no stale entry at `head`, so that
    /// `nextDeadline` is one look: it was a scan of every entry, and the presence hub reads it after each
    /// disconnect, so 1,000 clients leaving at once cost a million lookups.
    private var deadlines: [(at: UInt64, userId: Int64)] = []
    private var head = 0

    public init(grace: UInt64) {
        self.grace = grace
    }

    /// The published status of a user.
    public func status(of userId: Int64) -> PresenceStatus { users[userId]?.published ?? .offline }

    /// The number of users published as online or away (kept up to date: O(1)).
    public private(set) var availableCount = 0

    /// The earliest pending offline deadline.
    public var nextDeadline: UInt64? { head < deadlines.count ? deadlines[head].at : nil }

    private func isLive(_ entry: (at: UInt64, userId: Int64)) -> Bool { users[entry.userId]?.offlineAt == entry.at }

    /// Adds a deadline in order (at the end unless the clock went back).
    private mutating func addDeadline(_ at: UInt64, _ userId: Int64) {
        var index = deadlines.count
        while index > head && deadlines[index - 1].at > at { index -= 1 }
        deadlines.insert((at, userId), at: index)
    }

    /// Drops stale entries at the head (after every change), and the consumed part of the array once it is most of it.
    private mutating func pruneHead() {
        while head < deadlines.count && !isLive(deadlines[head]) { head += 1 }
        if head == deadlines.count {
            // Storage kept only while small: after a mass disconnect it would hold 16 bytes per user who left.
            deadlines.removeAll(keepingCapacity: deadlines.capacity <= 1024)
            head = 0
        } else if head >= 64 && head * 2 >= deadlines.count {
            deadlines.removeFirst(head)
            head = 0
        }
    }

    /// A device connected (as `online`).
    public mutating func connect(userId: Int64, device: UInt64, now: UInt64) -> [Change] {
        defer { pruneHead() }
        return update(userId) { $0.devices[device] = .online }
    }

    /// A device set its status (`online` or `away`; `offline` is treated as `away`: a connected device is
    /// never offline).
    public mutating func set(userId: Int64, device: UInt64, status: PresenceStatus, now: UInt64) -> [Change] {
        guard users[userId]?.devices[device] != nil else { return [] }
        defer { pruneHead() }
        return update(userId) { $0.devices[device] = status == .offline ? .away : status }
    }

    /// A device disconnected. The user's last device starts the grace period.
    public mutating func disconnect(userId: Int64, device: UInt64, now: UInt64) -> [Change] {
        guard var state = users[userId], state.devices.removeValue(forKey: device) != nil else { return [] }
        defer { pruneHead() }
        if state.devices.isEmpty {
            if state.published == .offline {
                users[userId] = nil
                return []
            }
            let at = now &+ grace
            state.offlineAt = at
            addDeadline(at, userId)
            users[userId] = state
            return []
        }
        users[userId] = state
        return update(userId) { _ in }
    }

    /// Publishes `offline` for users whose grace period is over (at or after the deadline).
    public mutating func tick(now: UInt64) -> [Change] {
        var changes: [Change] = []
        while head < deadlines.count && deadlines[head].at <= now {
            let entry = deadlines[head]
            head += 1
            guard isLive(entry) else { continue }
            users[entry.userId] = nil
            availableCount -= 1
            changes.append(Change(userId: entry.userId, status: .offline))
        }
        pruneHead()
        return changes.sorted { $0.userId < $1.userId }
    }

    private mutating func update(_ userId: Int64, _ body: (inout UserState) -> Void) -> [Change] {
        var state = users.removeValue(forKey: userId) ?? UserState()  // out of the dictionary: no copy of its devices
        body(&state)
        if !state.devices.isEmpty { state.offlineAt = nil }
        let aggregate = state.devices.maxValue() ?? state.published
        defer { users[userId] = state }
        if aggregate != state.published {
            if state.published == .offline { availableCount += 1 } else if aggregate == .offline { availableCount -= 1 }
            state.published = aggregate
            return [Change(userId: userId, status: aggregate)]
        }
        return []
    }
}
