//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol
import SwitchboardStore

/// Communities (`docs/protocol.md`, "Communities"): the list, membership, core members, the notifications and
/// unread markers. Events and courses publish their notifications with `CommunityNotifications.publish` inside
/// their transaction and, after the commit, `pushNotification` to the members.
struct CommunitiesFeature: FeatureModule {
    func register(in router: inout OperationRouter) {}

    /// Pushes `community.notification {notification}` (encoded once, the same bytes for every recipient) to every
    /// connected device of `members`, on every node (through the outbox and the cluster directory). Call it after
    /// the transaction that published the notification committed; `members` from `CommunityRepository.memberIds`
    /// (read in that transaction).
    static func pushNotification(_ services: ProtocolServices, _ notification: CommunityNotification, to members: [Int64]) {
        let bytes = ProtocolCodec.encodeEvent(CommunityNotificationEvent.name, CommunityNotificationEvent(notification: notification))
        services.deliveries.send(bytes, toUsers: members)
    }
}
