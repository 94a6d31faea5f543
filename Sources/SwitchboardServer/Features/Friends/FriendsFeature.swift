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

/// Friends and contact discovery: `friends.*`, `contacts.match` (docs/protocol.md "Friends"). Each handler
/// decodes, asks `FriendService` (the rules, one transaction, the events), delivers the `friend.*` events after the
/// commit, and tells presence (here and on every node) when a friendship starts or ends.
struct FriendsFeature: Feature {
    let service: FriendService

    init(context: ProtocolServices) {
        service = FriendService(
            db: context.pool, defaultCountryCode: context.configuration.defaultCountryCode,
            limits: context.configuration.discoveryLimits)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(FriendsAccountData.deletionSteps)
        registry.add(FriendsAccountData.exportSection)
        let limits = service.contacts.limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "friends",
                values: [
                    ("contacts-burst-per-user", "\(limits.contactsBurstPerUser)"),
                    ("contacts-interval-per-user", "\(limits.contactsIntervalPerUser)"),
                    ("contacts-burst-per-address", "\(limits.contactsBurstPerAddress)"),
                    ("contacts-interval-per-address", "\(limits.contactsIntervalPerAddress)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.FriendsRequest.self) {
            s, p async throws(FriendError) -> FriendsRequestResult in
            let (result, events) = try await service.request(s.caller, phone: p.phone, userId: p.userId)
            s.deliver(events)
            // A request crossing one from the other side made them friends.
            if let friend = result.friend, !events.isEmpty {
                s.services.friendshipChanged(s.userId, friend.userId, friends: true)
            }
            return result
        }
        registry.operations.register(Ops.FriendsAccept.self) { s, p async throws(FriendError) -> FriendResult in
            let (result, events) = try await service.accept(s.caller, requestId: p.requestId)
            s.deliver(events)
            s.services.friendshipChanged(s.userId, result.friend.userId, friends: true)
            return result
        }
        registry.operations.register(Ops.FriendsDecline.self) { s, p async throws(FriendError) -> Empty in
            s.deliver(try await service.settle(s.caller, requestId: p.requestId, decline: true))
            return Empty()
        }
        registry.operations.register(Ops.FriendsCancel.self) { s, p async throws(FriendError) -> Empty in
            s.deliver(try await service.settle(s.caller, requestId: p.requestId, decline: false))
            return Empty()
        }
        registry.operations.register(Ops.FriendsRemove.self) { s, p async throws(FriendError) -> Empty in
            s.deliver(try await service.remove(s.caller, friend: p.userId))
            s.services.friendshipChanged(s.userId, p.userId, friends: false)
            return Empty()
        }
        registry.operations.register(Ops.FriendsList.self) { s, _ async throws(FriendError) in
            try await service.list(of: s.userId)
        }
        registry.operations.register(Ops.FriendsRequests.self) { s, _ async throws(FriendError) in
            try await service.requests(of: s.userId)
        }
        registry.operations.register(Ops.ContactsMatch.self) { s, p async throws(FriendError) in
            try await service.match(s.caller, phones: p.phones)
        }
    }
}
