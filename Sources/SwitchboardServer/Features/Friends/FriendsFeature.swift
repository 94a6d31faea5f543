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

/// Friends and contact discovery: `friends.*`, `contacts.match`. Pushes the friend events after commit
/// and tells presence when a friendship starts or ends.
struct FriendsFeature: Feature {
    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.add(FriendsAccountData.deletionSteps)
        registry.add(FriendsAccountData.exportSection)
        registry.operations.register(Ops.FriendsRequest.self) { s, p async throws(ServiceError) -> FriendsRequestResult in
            let (result, events) = try await s.services.friends.request(from: s.userId, phone: p.phone, userId: p.userId)
            events.forEach(s.services.deliveries.push)
            if let friend = result.friend, !events.isEmpty { s.services.friendshipChanged(s.userId, friend.userId, friends: true) }
            return FriendsRequestResult(request: result.request.map(PendingFriendRequest.init), friend: result.friend.map(UserSummary.init))
        }
        registry.operations.register(Ops.FriendsAccept.self) { s, p async throws(ServiceError) -> FriendResult in
            let (friend, events) = try await s.services.friends.accept(requestId: p.requestId, me: s.userId)
            events.forEach(s.services.deliveries.push)
            s.services.friendshipChanged(s.userId, friend.userId, friends: true)
            return FriendResult(friend: UserSummary(friend))
        }
        registry.operations.register(Ops.FriendsDecline.self) { s, p async throws(ServiceError) -> Empty in
            try await s.services.friends.settle(requestId: p.requestId, me: s.userId, decline: true).forEach(s.services.deliveries.push)
            return Empty()
        }
        registry.operations.register(Ops.FriendsCancel.self) { s, p async throws(ServiceError) -> Empty in
            try await s.services.friends.settle(requestId: p.requestId, me: s.userId, decline: false).forEach(s.services.deliveries.push)
            return Empty()
        }
        registry.operations.register(Ops.FriendsRemove.self) { s, p async throws(ServiceError) -> Empty in
            try await s.services.friends.remove(friend: p.userId, me: s.userId).forEach(s.services.deliveries.push)
            s.services.friendshipChanged(s.userId, p.userId, friends: false)
            return Empty()
        }
        registry.operations.register(Ops.FriendsList.self) { s, _ async throws(ServiceError) -> FriendsListResult in
            FriendsListResult(friends: try await s.services.friends.friends(of: s.userId).map(UserSummary.init))
        }
        registry.operations.register(Ops.FriendsRequests.self) { s, _ async throws(ServiceError) -> FriendsRequestsResult in
            let (incoming, outgoing) = try await s.services.friends.requests(of: s.userId)
            return FriendsRequestsResult(incoming: incoming.map(PendingFriendRequest.init), outgoing: outgoing.map(PendingFriendRequest.init))
        }
        registry.operations.register(Ops.ContactsMatch.self) { s, p async throws(ServiceError) -> ContactsMatchResult in
            let friends = s.services.friends
            // A list over the per-request maximum is refused (too_many) by the service without costing tokens.
            if p.phones.count <= friends.maxContactsPerMatch,
                let refused = s.services.discovery.contacts(user: s.userId, address: s.address, count: p.phones.count, now: EventLoop.now())
            {
                throw refused
            }
            return ContactsMatchResult(matches: try await friends.match(phones: p.phones, me: s.userId).map(RegisteredContact.init))
        }
    }
}

extension PendingFriendRequest {
    init(_ r: FriendRequest) {
        self.init(requestId: r.requestId, from: UserSummary(r.from), to: UserSummary(r.to), createdAt: r.createdAt)
    }
}

extension RegisteredContact {
    init(_ c: ContactMatch) { self.init(phone: c.phone, userId: c.userId, displayName: c.displayName) }
}
