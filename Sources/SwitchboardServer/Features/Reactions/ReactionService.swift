//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Message reactions' use case (docs/protocol.md "Reactions"): `reactions.set`, one transaction
/// (`ReactionRepository.set`: the visibility check, the upsert or delete, the new counts and the members who see
/// the message) after the emoji rule and the caller's bucket; `message.reaction` to those members is returned,
/// never pushed from here. Off the loops only.
final class ReactionService: Sendable {
    /// The database (the server's pool, the test database in tests).
    let db: any Database
    /// `reactions.set` per user (`--reaction-rate`, burst three times that).
    let limiter: SharedRateLimiter<Int64>
    /// Reactions a user may set at once (the burst), for the configuration group.
    let burst: Double
    /// Reactions per user per second after the burst, for the configuration group.
    let perSecond: Double
    /// Monotonic nanoseconds for the rate limiter (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    /// The emoji: a short string, at most 8 grapheme clusters and 64 UTF-8 bytes, no control characters.
    static let emojiRule = TextRule(field: "emoji", maxCharacters: 8, maxBytes: 64)

    init(db: any Database, burst: Double, perSecond: Double, clock: any EngineClock = SystemClock()) {
        self.db = db
        self.burst = burst
        self.perSecond = perSecond
        limiter = SharedRateLimiter(capacity: max(1, burst), refillPerSecond: max(0.001, perSecond))
        self.clock = clock
    }

    /// `reactions.set`: sets (`active`, the default) or removes the caller's reaction to a message it sees; the
    /// counts after the change. When it changed anything, the members who see the message hear
    /// `message.reaction`.
    func set(
        _ caller: Caller, messageId: Int64, emoji: String, active: Bool?
    ) async throws(ReactionError) -> (ReactionsResult, [DomainEvent]) {
        let active = active ?? true
        if active, let problem = StoredText.problem(emoji, Self.emojiRule) { throw .invalidText(problem) }
        let attempt = limiter.attempt(caller.userId, now: clock.now(), sharedBy: caller.limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds { throw .rateLimited(retryAfterMilliseconds: retryAfter) }
        let me = caller.userId
        let emoji = active ? emoji : nil
        let change = try await db.write(as: ReactionError.self) { db in
            try ReactionRepository.set(db, messageId: messageId, userId: me, emoji: emoji)
        }
        let result = ReactionsResult(
            conversationId: change.conversationId, messageId: messageId, reactions: change.counts)
        guard change.changed else { return (result, []) }
        let event = MessageReactionEvent(
            conversationId: change.conversationId, messageId: messageId, userId: me, emoji: emoji,
            reactions: change.counts.map { ReactionCount(emoji: $0.emoji, count: $0.count, mine: nil) })
        return (result, [DomainEvent(to: change.members, event)])
    }
}
