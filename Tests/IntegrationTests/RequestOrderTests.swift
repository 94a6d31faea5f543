//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

extension ProtocolClient {
    /// Sends several requests in one write (pipelined) and returns their ids in order.
    func pipeline(_ requests: [(op: String, params: [String: Any])]) throws -> [Int] {
        var bytes: [UInt8] = []
        var ids: [Int] = []
        for (op, params) in requests {
            var body = params
            body["id"] = nextID
            body["op"] = op
            ids.append(nextID)
            nextID += 1
            bytes += clientFrame(opcode: 1, payload: Array(try JSONSerialization.data(withJSONObject: body)))
        }
        try socket.send(bytes)
        return ids
    }

    /// Waits for the replies to `ids` (in any order); events arriving meanwhile are kept.
    func replies(_ ids: [Int]) throws -> [[String: Any]] {
        var found: [Int: [String: Any]] = [:]
        while found.count < ids.count {
            let message = try next()
            if let re = message["re"] as? Int, ids.contains(re) {
                found[re] = message
            } else {
                events.append(message)
            }
        }
        return ids.map { found[$0]! }
    }
}

/// A browser's `RTCIceCandidateInit` as the JSON text of a `call.signal` payload.
let testCandidate =
    #"{"candidate":"candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host","sdpMid":"0","sdpMLineIndex":0}"#

@Suite("Order of requests on one connection", .serialized)
struct RequestOrderTests {
    /// `call.signal` and `call.cancel` pipelined right behind their `call.invite` (which awaits a friendship
    /// lookup) must find the call: every one succeeds and the call ends cancelled, the callee seeing the ring
    /// before the end. (Before the ordered lane about a quarter of the tries answered `not_found` and left the
    /// call ringing.)
    @Test func signalAndCancelPipelinedBehindTheirInvite() throws {
        let (server, port, database) = try startProtocolServer { $0.calls.ringTimeout = 30 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "Ann")
        let bob = try makeUser(port, "Bob")
        try befriend(ann, bob)
        for attempt in 0..<50 {
            let callId = "ordered-\(attempt)"
            let ids = try ann.client.pipeline([
                ("call.invite", ["callee_id": bob.id, "call_id": callId, "offer": "v=0 offer"]),
                ("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": testCandidate]),
                ("call.cancel", ["call_id": callId]),
            ])
            let replies = try ann.client.replies(ids)
            for (reply, op) in zip(replies, ["invite", "signal", "cancel"]) {
                #expect(ok(reply) != nil, "attempt \(attempt): \(op) answered \(reply)")
            }
            #expect(ok(replies[0])?["disposition"] as? String == "ringing")
            let realId = try #require((ok(replies[0])?["call"] as? [String: Any])?["call_id"] as? String)
            // The callee sees this call ring, then end as cancelled.
            var sawRing = false
            var ended: [String: Any] = [:]
            while ended.isEmpty {
                let event = try bob.client.next()
                guard event["call_id"] as? String == realId else { continue }
                switch event["ev"] as? String {
                case "call.ring": sawRing = true
                case "call.ended": ended = event
                default: break
                }
            }
            #expect(sawRing, "attempt \(attempt): call.ended before call.ring")
            #expect(ended["reason"] as? String == "cancelled")
        }
    }

    /// `messages.send` by `user_id` (resolving the direct conversation first) then by `conversation_id` (straight
    /// to the writer), pipelined: stored in the order sent.
    @Test func sendsAreStoredInTheOrderSent() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "Ann")
        let bob = try makeUser(port, "Bob")
        try befriend(ann, bob)
        let first = try #require(ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "hello"])))
        let conversation = try #require(first["conversation_id"] as? Int)
        for attempt in 0..<30 {
            let ids = try ann.client.pipeline([
                ("messages.send", ["user_id": bob.id, "client_id": "u-\(attempt)", "text": "first \(attempt)"]),
                (
                    "messages.send",
                    ["conversation_id": conversation, "client_id": "c-\(attempt)", "text": "second \(attempt)"]
                ),
            ])
            let replies = try ann.client.replies(ids)
            let seqs = replies.map { ok($0)?["seq"] as? Int ?? -1 }
            #expect(seqs[0] > 0 && seqs[1] == seqs[0] + 1, "attempt \(attempt): seqs \(seqs) \(replies)")
        }
    }

    /// Past `maxWaitingRequests` behind a running state-changing request, further ones are refused at once.
    @Test func waitingRequestsAreBounded() throws {
        let (server, port, database) = try startProtocolServer {
            $0.calls.ringTimeout = 30
            $0.maxWaitingRequests = 2
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "Ann")
        let bob = try makeUser(port, "Bob")
        try befriend(ann, bob)
        let signal: (op: String, params: [String: Any]) = (
            "call.signal", ["call_id": "bounded", "kind": "ice_candidate", "payload": testCandidate]
        )
        // The invite awaits its friendship lookup; two signals wait behind it, the next two are refused.
        let ids = try ann.client.pipeline([
            ("call.invite", ["callee_id": bob.id, "call_id": "bounded"]), signal, signal, signal, signal,
        ])
        let replies = try ann.client.replies(ids)
        #expect(replies.prefix(3).allSatisfy { ok($0) != nil }, "\(replies)")
        #expect(replies.suffix(2).allSatisfy { errorCode($0) == "rate_limited" }, "\(replies)")
        // The lane is free again afterwards.
        #expect(ok(try ann.client.call("call.cancel", ["call_id": "bounded"])) != nil)
    }
}
