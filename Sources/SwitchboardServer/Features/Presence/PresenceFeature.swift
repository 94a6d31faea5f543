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

/// Presence and typing: `presence.set` (to the presence hub's queue) and `typing` (to the conversation's
/// writer, which knows its members). `PresenceService` checks the rules on the loop; the handlers hand the
/// effect on, and are done when they have.
struct PresenceFeature: Feature {
    /// The rules checked before the hand-offs.
    let service: PresenceService

    init(context: ProtocolServices) {
        let messaging = context.configuration.messaging
        service = PresenceService(typingBurst: messaging.typingBurst, typingPerSecond: messaging.typingPerSecond)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.configuration.append(
            ConfigurationGroup(
                feature: "presence",
                values: [("typing-rate", "\(service.typingPerSecond)")]))
        let service = self.service
        registry.operations.register(Ops.PresenceSet.self) { context, p in
            guard let device = context.device else { return }
            let status: PresenceStatus
            do throws(PresenceError) { status = try service.status(p.status) } catch {
                context.fail(error.wire)
                return
            }
            context.services.presence.set(device, status: status)
            context.services.cluster?.directory.localStatus(device, status: status.rawValue)
            context.reply(Empty())
        }
        registry.operations.register(Ops.Typing.self) { context, p in
            guard let device = context.device else { return }
            let activity: String
            do throws(PresenceError) {
                activity = try service.typing(
                    Caller(userId: context.me, limitShare: context.limitShare), activity: p.activity)
            } catch {
                context.fail(error.wire)
                return
            }
            context.services.messages.writer(for: p.conversationId).typing(
                conversationId: p.conversationId, userId: context.me, activity: activity, active: p.active ?? true,
                origin: device, id: context.id)
        }
    }
}
