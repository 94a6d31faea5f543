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

/// Message reactions: `reactions.set`, the `message.reaction` event, and the counts on messages of
/// `messages.history` and `sync` (`ReactionRepository.attach`, called by the messaging feature). The handler
/// decodes, asks `ReactionService` (the rules, one transaction, the event), and delivers the event after the
/// commit through the session registry, like `conversation.read`.
///
/// A reaction does not pass through the conversation's writer: it changes no seq, and ordering it with the message
/// stream would cost every reaction a hop and a place in the writer's queue. A client may therefore see a
/// `message.reaction` for a message whose `message` event it has not received yet; history carries the counts.
struct ReactionsFeature: Feature {
    static let migrations: [Migration] = [.v0005Reactions]

    /// `reactions.set`'s rules, transaction and event.
    let service: ReactionService

    init(context: ProtocolServices) {
        let messaging = context.configuration.messaging
        service = ReactionService(
            db: context.pool, burst: messaging.reactionBurst, perSecond: messaging.reactionsPerSecond)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(ReactionsAccountData.deletionSteps)
        registry.add(ReactionsAccountData.exportSection)
        registry.configuration.append(
            ConfigurationGroup(feature: "reactions", values: [("reaction-rate", "\(service.perSecond)")]))
        let service = self.service
        registry.operations.register(Ops.ReactionsSet.self) { s, p async throws(ReactionError) -> ReactionsResult in
            let (result, events) = try await service.set(
                s.caller, messageId: p.messageId, emoji: p.emoji, active: p.active)
            s.deliver(events)
            return result
        }
    }
}
