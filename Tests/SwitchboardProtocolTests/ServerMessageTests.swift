//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardProtocol

let ann = UserSummary(userId: 1, displayName: "Ann")
let bob = UserSummary(userId: 2, displayName: "Bob")
let pending = PendingFriendRequest(requestId: 10, from: ann, to: bob, createdAt: "2026-11-23T01:02:03Z")

/// One event of every kind.
let everyEvent: [ServerEvent] = [
    .friendRequestReceived(.init(request: pending)),
    .friendRequestAccepted(.init(requestId: 10, requester: ann, accepter: bob)),
    .friendRequestDeclined(.init(requestId: 11, fromUserId: 1, toUserId: 2)),
    .friendRequestCancelled(.init(requestId: 12, fromUserId: 2, toUserId: 1)),
    .friendRemoved(.init(userIds: [1, 2])),
    .profileUpdated(.init(profile: UserProfile(userId: 1, displayName: "Ann B."))),
    .sessionRevoked(.init(sessionId: 99)),
]

func serverMessage(_ bytes: [UInt8]) throws -> ServerMessage {
    try ProtocolCodec.decodeServerMessage(bytes).get()
}

@Suite struct ServerMessageTests {
    @Test func everyEventNameIsCovered() {
        #expect(Set(everyEvent.map(\.name)) == Set(ServerEvent.Name.allCases.map(\.rawValue)))
    }

    @Test(arguments: everyEvent)
    func eventRoundTrip(event: ServerEvent) throws {
        let bytes = ProtocolCodec.encodeEvent(event)
        #expect(try serverMessage(bytes) == .event(event))
        // The typed encoder and the name-and-body encoder agree.
        #expect(text(bytes).contains(#""ev":"\#(event.name)""#))
    }

    @Test func eventWireForm() throws {
        #expect(
            text(ProtocolCodec.encodeEvent(.friendRequestDeclined(.init(requestId: 11, fromUserId: 1, toUserId: 2))))
                == #"{"ev":"friend.request.declined","from_user_id":1,"request_id":11,"to_user_id":2}"#)
        #expect(
            text(ProtocolCodec.encodeEvent(.sessionRevoked(.init(sessionId: 5))))
                == #"{"ev":"session.revoked","session_id":5}"#)
        // The untyped encoder the server uses for ad-hoc bodies decodes as the typed event.
        #expect(
            try serverMessage(ProtocolCodec.encodeEvent("friend.removed", ["user_ids": [3, 4]]))
                == .event(.friendRemoved(.init(userIds: [3, 4]))))
        #expect(
            try serverMessage(ProtocolCodec.encodeEvent("session.revoked", ["session_id": 8]))
                == .event(.sessionRevoked(.init(sessionId: 8))))
        // Events from a later server version are not errors.
        #expect(
            try serverMessage(Array(#"{"ev":"message.new","conversation_id":1}"#.utf8))
                == .event(.unknown(name: "message.new")))
        #expect(text(ProtocolCodec.encodeEvent(.unknown(name: "x.y"))) == #"{"ev":"x.y"}"#)
    }

    @Test func replies() throws {
        let credentials = SessionCredentials(userId: 1, sessionId: 2, sessionToken: "t")
        let reply = ProtocolCodec.encodeReply(id: .string("r1"), result: credentials)
        #expect(text(reply) == #"{"ok":{"session_id":2,"session_token":"t","user_id":1},"re":"r1"}"#)
        guard case .reply(let id, let result) = try serverMessage(reply) else {
            Issue.record("not a reply")
            return
        }
        #expect(id == .string("r1"))
        #expect(try result.decode(SessionCredentials.self) == credentials)
        #expect(throws: ProtocolError.self) { try result.decode(ProfileResult.self) }
        do {
            _ = try result.decode(ProfileResult.self)
        } catch {
            #expect(error.message == "missing field ok.profile")
        }

        let requests = FriendsRequestsResult(incoming: [pending], outgoing: [])
        guard case .reply(_, let r2) = try serverMessage(ProtocolCodec.encodeReply(id: .int(3), result: requests))
        else {
            Issue.record("not a reply")
            return
        }
        #expect(try r2.decode(FriendsRequestsResult.self) == requests)
        guard case .reply(_, let r3) = try serverMessage(ProtocolCodec.encodeReply(id: .int(4), result: Empty())) else {
            Issue.record("not a reply")
            return
        }
        #expect(try r3.decode(Empty.self) == Empty())
        let friendOnly = FriendsRequestResult(friend: bob)
        #expect(
            text(ProtocolCodec.encodeReply(id: .int(5), result: friendOnly))
                == #"{"ok":{"friend":{"display_name":"Bob","user_id":2}},"re":5}"#)
    }

    @Test func errorReplies() throws {
        let limited = ProtocolCodec.encodeError(
            id: .int(9), code: .rateLimited, message: "slow down", extra: ["retry_after_ms": 1500])
        #expect(
            try serverMessage(limited)
                == .error(
                    id: .int(9), error: ReplyError(code: "rate_limited", message: "slow down", retryAfterMs: 1500)))
        let weak = ProtocolCodec.encodeError(
            id: .string("a"), code: .weakPassword, message: "too common", reason: "common")
        guard case .error(_, let e) = try serverMessage(weak) else {
            Issue.record("not an error")
            return
        }
        #expect(e.errorCode == .weakPassword && e.reason == "common" && e.retryAfterMs == nil)
        let anonymous = ProtocolCodec.encodeError(id: nil, code: .badRequest, message: "malformed JSON")
        #expect(
            try serverMessage(anonymous)
                == .error(id: nil, error: ReplyError(code: "bad_request", message: "malformed JSON")))
        // A code from a later server version still decodes.
        guard
            case .error(_, let future) = try serverMessage(
                Array(#"{"re":1,"error":{"code":"new_code","message":"m"}}"#.utf8))
        else {
            Issue.record("not an error")
            return
        }
        #expect(future.code == "new_code" && future.errorCode == nil)
    }

    @Test func malformedServerFrames() {
        for frame in [
            "", "[]", "{}", #"{"re":null,"ok":{}}"#, #"{"re":1}"#, #"{"ev":5}"#, #"{"re":1,"error":{"code":"x"}}"#,
        ] {
            guard case .failure(let e) = ProtocolCodec.decodeServerMessage(Array(frame.utf8)) else {
                Issue.record("accepted \(frame)")
                continue
            }
            #expect(e.code == .badRequest)
        }
    }
}
