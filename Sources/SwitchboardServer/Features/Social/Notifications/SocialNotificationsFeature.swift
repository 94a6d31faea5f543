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

/// Social notifications: `notifications.list` (grouped), `notifications.unread`, `notifications.read`
/// (docs/protocol.md, "Social notifications"). Each handler decodes, asks `SocialNotificationService`, delivers its
/// events (`notifications.read` to the caller's devices) and replies. The rows are written by follows and posts
/// inside their transactions; the live `notification` event is `SocialLive`'s (`SocialChange.notified`).
struct SocialNotificationsFeature: Feature {
    let service: SocialNotificationService

    init(context: ProtocolServices) {
        service = SocialNotificationService(db: context.pool)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(SocialAccountData.notifications)
        let service = self.service
        registry.operations.register(Ops.NotificationsList.self) {
            s, p async throws(SocialNotificationError) -> SocialNotificationsPage in
            try await service.list(user: s.userId, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.NotificationsUnread.self) {
            s, _ async throws(SocialNotificationError) -> SocialUnread in
            try await service.unread(user: s.userId)
        }
        registry.operations.register(Ops.NotificationsRead.self) {
            s, p async throws(SocialNotificationError) -> SocialUnread in
            let (result, events) = try await service.markRead(user: s.userId, upTo: p.upTo)
            s.deliver(events)
            return result
        }
    }
}
