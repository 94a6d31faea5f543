//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Typing and recording indicators as a pure state machine with an injected monotonic clock: each
/// indicator expires `ttl` nanoseconds after its last refresh unless stopped first.
public struct TypingTracker: Sendable {
    public struct Key: Hashable, Sendable {
        public var conversationId: Int64
        public var userId: Int64
        /// `typing` or `recording`.
        public var activity: String
        public init(conversationId: Int64, userId: Int64, activity: String) {
            self.conversationId = conversationId
            self.userId = userId
            self.activity = activity
        }
    }

    public let ttl: UInt64
    private var expiries: [Key: UInt64] = [:]

    public init(ttl: UInt64) {
        self.ttl = ttl
    }

    /// Starts or refreshes an indicator; returns true when it was not active (announce it).
    public mutating func start(_ key: Key, now: UInt64) -> Bool {
        let wasActive = expiries[key] != nil
        expiries[key] = now &+ ttl
        return !wasActive
    }

    /// Stops an indicator; returns true when it was active (announce the stop).
    public mutating func stop(_ key: Key) -> Bool {
        expiries.removeValue(forKey: key) != nil
    }

    /// Stops every indicator of a user in a conversation (it sent a message); returns the stopped ones.
    public mutating func stopAll(conversationId: Int64, userId: Int64) -> [Key] {
        let keys = expiries.keys.filter { $0.conversationId == conversationId && $0.userId == userId }
        for key in keys { expiries[key] = nil }
        return keys.sorted { $0.activity < $1.activity }
    }

    /// The indicators that expired at or before `now` (removed).
    public mutating func tick(now: UInt64) -> [Key] {
        let due = expiries.filter { $0.value <= now }.map(\.key)
        for key in due { expiries[key] = nil }
        return due.sorted { ($0.conversationId, $0.userId, $0.activity) < ($1.conversationId, $1.userId, $1.activity) }
    }

    public var activeCount: Int { expiries.count }

    public var nextDeadline: UInt64? { expiries.values.min() }
}
