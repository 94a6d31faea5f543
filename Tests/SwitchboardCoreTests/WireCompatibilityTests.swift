//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import SwitchboardProtocol
import Testing

@testable import SwitchboardCore

/// The services encode their own result and event types; the protocol's typed decoders (which clients
/// use) must read exactly what they send.
@Suite struct WireCompatibilityTests {
    func decodeReply<T: Decodable>(_ bytes: [UInt8], as type: T.Type) throws -> T {
        guard case .reply(_, let result) = try ProtocolCodec.decodeServerMessage(bytes).get() else {
            throw ProtocolError(id: nil, code: .badRequest, message: "not a reply")
        }
        return try result.decode(type)
    }

    func event(_ bytes: [UInt8]) throws -> ServerEvent {
        guard case .event(let event) = try ProtocolCodec.decodeServerMessage(bytes).get() else {
            throw ProtocolError(id: nil, code: .badRequest, message: "not an event")
        }
        return event
    }

    @Test func results() throws {
        let credentials = SessionCredentials(userId: 1, sessionId: 2, sessionToken: "tok")
        #expect(
            try decodeReply(ProtocolCodec.encodeReply(id: .int(1), result: credentials), as: SessionCredentials.self)
                == SessionCredentials(userId: 1, sessionId: 2, sessionToken: "tok"))
        let session = SessionInfo(
            sessionId: 3, device: "cli", createdAt: "2026-01-01T00:00:00Z", lastSeenAt: "2026-01-02T00:00:00Z",
            current: true)
        #expect(
            try decodeReply(
                ProtocolCodec.encodeReply(id: .int(2), result: ["sessions": [session]]), as: SessionsListResult.self)
                == SessionsListResult(sessions: [
                    DeviceSession(
                        sessionId: 3, device: "cli", createdAt: "2026-01-01T00:00:00Z",
                        lastSeenAt: "2026-01-02T00:00:00Z", current: true)
                ]))
        let own = Profile(userId: 1, displayName: "Ann", phone: "+15551234567")
        #expect(
            try decodeReply(ProtocolCodec.encodeReply(id: .int(3), result: ["profile": own]), as: ProfileResult.self)
                == ProfileResult(profile: UserProfile(userId: 1, displayName: "Ann", phone: "+15551234567")))
        let request = FriendRequest(
            requestId: 9, from: Profile(userId: 1, displayName: "Ann"), to: Profile(userId: 2, displayName: "Bob"),
            createdAt: "2026-01-01T00:00:00Z")
        let expectedRequest = PendingFriendRequest(
            requestId: 9, from: UserSummary(userId: 1, displayName: "Ann"),
            to: UserSummary(userId: 2, displayName: "Bob"),
            createdAt: "2026-01-01T00:00:00Z")
        #expect(
            try decodeReply(
                ProtocolCodec.encodeReply(id: .int(4), result: ["request": request]),
                as: FriendsRequestResult.self)
                == FriendsRequestResult(request: expectedRequest))
        let friend = Friend(userId: 2, displayName: "Bob")
        #expect(
            try decodeReply(
                ProtocolCodec.encodeReply(id: .int(5), result: ["friend": friend]),
                as: FriendsRequestResult.self)
                == FriendsRequestResult(friend: UserSummary(userId: 2, displayName: "Bob")))
        #expect(
            try decodeReply(
                ProtocolCodec.encodeReply(id: .int(6), result: ["friends": [friend]]), as: FriendsListResult.self)
                == FriendsListResult(friends: [UserSummary(userId: 2, displayName: "Bob")]))
        #expect(
            try decodeReply(
                ProtocolCodec.encodeReply(id: .int(7), result: ["incoming": [request], "outgoing": []]),
                as: FriendsRequestsResult.self)
                == FriendsRequestsResult(incoming: [expectedRequest], outgoing: []))
        let match = ContactMatch(phone: "+15551234567", userId: 2, displayName: "Bob")
        #expect(
            try decodeReply(
                ProtocolCodec.encodeReply(id: .int(8), result: ["matches": [match]]), as: ContactsMatchResult.self)
                == ContactsMatchResult(matches: [
                    RegisteredContact(phone: "+15551234567", userId: 2, displayName: "Bob")
                ]))
    }

    @Test func events() throws {
        let request = FriendRequest(
            requestId: 9, from: Profile(userId: 1, displayName: "Ann"), to: Profile(userId: 2, displayName: "Bob"),
            createdAt: "t")
        let ann = UserSummary(userId: 1, displayName: "Ann")
        let bob = UserSummary(userId: 2, displayName: "Bob")
        #expect(
            try event(ProtocolCodec.encodeEvent("friend.request.received", ["request": request]))
                == .friendRequestReceived(
                    .init(request: PendingFriendRequest(requestId: 9, from: ann, to: bob, createdAt: "t"))))
        let accepted = ServerEvent.FriendRequestAccepted(requestId: 9, requester: ann, accepter: bob)
        #expect(
            try event(ProtocolCodec.encodeEvent("friend.request.accepted", accepted))
                == .friendRequestAccepted(.init(requestId: 9, requester: ann, accepter: bob)))
        let settled = ServerEvent.FriendRequestDeclined(requestId: 9, fromUserId: 1, toUserId: 2)
        #expect(
            try event(ProtocolCodec.encodeEvent("friend.request.declined", settled))
                == .friendRequestDeclined(.init(requestId: 9, fromUserId: 1, toUserId: 2)))
        #expect(
            try event(ProtocolCodec.encodeEvent("friend.request.cancelled", settled))
                == .friendRequestCancelled(.init(requestId: 9, fromUserId: 1, toUserId: 2)))
        #expect(
            try event(ProtocolCodec.encodeEvent("friend.removed", ["user_ids": [Int64(1), 2]]))
                == .friendRemoved(.init(userIds: [1, 2])))
        #expect(
            try event(ProtocolCodec.encodeEvent("profile.updated", ["profile": Profile(userId: 1, displayName: "Ann")]))
                == .profileUpdated(.init(profile: UserProfile(userId: 1, displayName: "Ann"))))
    }

    @Test func serviceErrorsCarryTheDocumentedExtras() throws {
        let limited = ProtocolCodec.encodeError(
            id: .int(1), code: .rateLimited, message: "slow down", extra: ["retry_after_ms": 12_000])
        guard case .error(_, let e) = try ProtocolCodec.decodeServerMessage(limited).get() else {
            Issue.record("not an error")
            return
        }
        #expect(e.errorCode == .rateLimited && e.retryAfterMs == 12_000)
        let weak = ProtocolCodec.encodeError(
            id: .int(2), code: .weakPassword, message: "weak", reason: PasswordWeakness.sequence.rawValue)
        guard case .error(_, let w) = try ProtocolCodec.decodeServerMessage(weak).get() else {
            Issue.record("not an error")
            return
        }
        #expect(w.reason == "sequence")
    }
}
