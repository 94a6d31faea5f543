//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCalls
import SwitchboardProtocol
import Testing

@testable import SwitchboardServer

/// The server's hand-written encoders (the hot paths that skip `JSONEncoder`) against the `Codable` form of the
/// schema's types: the same JSON, for representative values.
@Suite struct HandWrittenEncoderTests {
    /// A JSON text as an object, for comparisons that ignore key order.
    func object(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    /// The `ok` object of a reply.
    func ok(_ reply: [UInt8]) throws -> NSDictionary {
        try #require(try object(reply)["ok"] as? NSDictionary)
    }

    /// `CallService.write` as a JSON object.
    func written(_ call: Call, offer: Bool = false, now: UInt64) throws -> NSDictionary {
        var w = JSONWriter()
        CallService.write(call, &w, offer: offer, now: now)
        return try object(w.bytes)
    }

    /// `CallService.info` encoded by the protocol's encoder, as a JSON object.
    func codable(_ call: Call, offer: Bool = false, now: UInt64) throws -> NSDictionary {
        try ok(ProtocolCodec.encodeReply(id: .int(1), result: CallService.info(call, offer: offer, now: now)))
    }

    @Test func messagesSendsAcknowledgementIsTheReplysEncoding() {
        let message = ChatMessage(
            id: 5, conversationId: 7, seq: 3, senderId: 1, kind: .text, text: "hi", clientId: "c-1",
            ts: "2026-11-23T10:00:00.123Z")
        let ack = SendAck(messageId: 5, conversationId: 7, seq: 3, ts: message.ts)
        for id in [RequestID.int(9), .int(-1), .string("a\"b\\c"), .string("")] {
            #expect(MessagingFeature.ackJSON(id, message) == ProtocolCodec.encodeReply(id: id, result: ack))
        }
    }

    @Test func callResultsMatchTheCodableForm() throws {
        let settings = CallSettings()
        var registry = CallRegistry(configuration: settings.registryConfiguration)
        let now: UInt64 = 5_000_000_000
        // A ringing call with an offer (the offer is not in the caller's own result).
        let invite = CallCommand.invite(
            alias: "c-1", caller: 1, callerDevice: 11, callerName: "Ann", callee: 2, media: "video",
            calleeOnlineDevices: [21, 22], offer: "v=0 \"offer\"\r\n")
        let (invited, _) = try invite.apply(to: &registry, now: now, settings: settings)
        let ringing = try #require(registry.call(CallID("c-1"), for: UserID(1)))
        let expected = Ops.CallInvite.Result(call: CallService.info(ringing, now: now), disposition: "ringing")
        #expect(try object(invited) == ok(ProtocolCodec.encodeReply(id: .int(1), result: expected)))
        #expect(try written(ringing, now: now + 1_000_000_000) == codable(ringing, now: now + 1_000_000_000))
        #expect(try written(ringing, offer: true, now: now) == codable(ringing, offer: true, now: now))

        // Glare: the callee calls back and joins the ringing call, whose offer it answers.
        let back = CallCommand.invite(
            alias: nil, caller: 2, callerDevice: 21, callerName: "Bob", callee: 1, media: "video",
            calleeOnlineDevices: [11], offer: nil)
        let (joined, _) = try back.apply(to: &registry, now: now + 1, settings: settings)
        let glare = try #require(registry.call(ringing.id))
        let expectedGlare = Ops.CallInvite.Result(
            call: CallService.info(glare, offer: true, now: now + 1), disposition: "joined")
        #expect(try object(joined) == ok(ProtocolCodec.encodeReply(id: .int(1), result: expectedGlare)))

        // Active, then ended.
        var fresh = CallRegistry(configuration: settings.registryConfiguration)
        _ = try invite.apply(to: &fresh, now: now, settings: settings)
        let id = try #require(fresh.call(CallID("c-1"), for: UserID(1))).id
        let accept = CallCommand.accept(callId: id.rawValue, device: 21, user: 2, answer: "v=0 answer")
        let (accepted, _) = try accept.apply(to: &fresh, now: now + 2, settings: settings)
        let active = try #require(fresh.call(id))
        let expectedAccept = Ops.CallAccept.Result(call: CallService.info(active, now: now + 2))
        #expect(try object(accepted) == ok(ProtocolCodec.encodeReply(id: .int(1), result: expectedAccept)))
        #expect(try written(active, now: now + 3) == codable(active, now: now + 3))
        let hangup = CallCommand.hangup(callId: id.rawValue, device: 11, user: 1)
        _ = try hangup.apply(to: &fresh, now: now + 4, settings: settings)
        let ended = try #require(fresh.call(id))
        #expect(try written(ended, now: now + 5) == codable(ended, now: now + 5))
        #expect(try codable(ended, now: now + 5)["reason"] as? String == "hangup")
    }
}
