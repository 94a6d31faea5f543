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
import SwitchboardTransport

/// Presence and typing: `presence.set` (to the presence hub's queue) and `typing` (to the conversation's
/// writer, which knows its members). Both are done when handed on, on the loop.
struct PresenceFeature: Feature {
    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.operations.register(Ops.PresenceSet.self) { context, p in
            guard let device = context.device else { return }
            guard let status = PresenceStatus(rawValue: p.status), status != .offline else {
                context.fail(.badRequest, "status must be online or away")
                return
            }
            context.services.presence.set(device, status: status)
            context.services.cluster?.directory.localStatus(device, status: status.rawValue)
            context.reply(Empty())
        }
        registry.operations.register(Ops.Typing.self) { context, p in
            guard let device = context.device else { return }
            let activity = p.activity ?? "typing"
            guard activity == "typing" || activity == "recording" else {
                context.fail(.badRequest, "activity must be typing or recording")
                return
            }
            let hub = context.services.messages
            if let retryAfter = hub.typingLimiter.attempt(context.me, now: EventLoop.now(), sharedBy: context.limitShare).retryAfterMilliseconds {
                context.fail(.rateLimited, "too many typing updates", extra: ["retry_after_ms": retryAfter])
                return
            }
            hub.writer(for: p.conversationId).typing(
                conversationId: p.conversationId, userId: context.me, activity: activity, active: p.active ?? true, origin: device,
                id: context.id)
        }
    }
}
