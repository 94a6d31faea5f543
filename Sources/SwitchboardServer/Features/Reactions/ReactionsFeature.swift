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
import SwitchboardTransport

/// Message reactions: `reactions.set`, the `message.reaction` event, and the counts on messages of
/// `messages.history` and `sync` (`ReactionRepository.attach`, called by the messaging feature).
///
/// A reaction is one transaction (`ReactionRepository.set`: the visibility check, the upsert or delete, the new
/// counts and the members who see the message), then the event goes to those members' devices through the
/// session registry, like `conversation.read`. It does not pass through the conversation's writer: a
/// reaction changes no seq, and ordering it with the message stream would cost every reaction a hop and a
/// place in the writer's queue. A client may therefore see a `message.reaction` for a message whose
/// `message` event it has not received yet; history carries the counts.
struct ReactionsFeature: Feature {
    static let migrations: [Migration] = [.v0005Reactions]

    init(context: ProtocolServices) {}

    /// The emoji: a short string, at most 8 grapheme clusters and 64 UTF-8 bytes, no control characters.
    static let emojiRule = TextRule(field: "emoji", maxCharacters: 8, maxBytes: 64)

    func register(in registry: inout FeatureRegistry) {
        registry.add(ReactionsAccountData.deletionSteps)
        registry.add(ReactionsAccountData.exportSection)
        registry.operations.register(Ops.ReactionsSet.self) { context, p in
            let active = p.active ?? true
            if active, let problem = StoredText.problem(p.emoji, Self.emojiRule) {
                context.fail(.badRequest, problem)
                return
            }
            if let retryAfter = context.services.reactionLimiter.attempt(context.me, now: EventLoop.now(), sharedBy: context.limitShare).retryAfterMilliseconds {
                context.fail(.rateLimited, "too many reactions", extra: ["retry_after_ms": retryAfter])
                return
            }
            let pool = context.services.accounts.pool
            let deliveries = context.services.deliveries
            let me = context.me
            let emoji = active ? p.emoji : nil
            context.run { () async throws(ServiceError) -> ReactionsResult in
                let change: ReactionRepository.Change
                do {
                    change = try await pool.transaction { db in
                        try ReactionRepository.set(db, messageId: p.messageId, userId: me, emoji: emoji)
                    }
                } catch { throw ServiceError.from(error) }
                if change.changed {
                    let event = MessageReactionEvent(
                        conversationId: change.conversationId, messageId: p.messageId, userId: me, emoji: emoji,
                        reactions: change.counts.map { ReactionCount(emoji: $0.emoji, count: $0.count, mine: nil) })
                    deliveries.push(PushEvent(users: change.members, bytes: ProtocolCodec.encodeEvent(event)))
                }
                return ReactionsResult(conversationId: change.conversationId, messageId: p.messageId, reactions: change.counts)
            }
        }
    }
}
