//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import SwitchboardStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ann (devices a1, a2) and Bob (b1, b2), friends; Zed is a stranger to both.
struct CallCast {
    let ann: TestUser
    let a2: ProtocolClient
    let bob: TestUser
    let b2: ProtocolClient
    let zed: TestUser
    var a1: ProtocolClient { ann.client }
    var b1: ProtocolClient { bob.client }

    init(_ port: Int) throws {
        ann = try makeUser(port, "Ann")
        bob = try makeUser(port, "Bob")
        zed = try makeUser(port, "Zed")
        try befriend(ann, bob)
        a2 = try secondDevice(port, ann, "ann-2")
        b2 = try secondDevice(port, bob, "bob-2")
    }

    func invite(video: Bool = false, offer: String? = "v=0 offer") throws -> (id: String, reply: [String: Any]) {
        var params: [String: Any] = ["callee_id": bob.id, "media": video ? "video" : "voice"]
        if let offer { params["offer"] = offer }
        let reply = try #require(ok(try a1.call("call.invite", params)))
        let call = try #require(reply["call"] as? [String: Any])
        return (try #require(call["call_id"] as? String), reply)
    }
}

@Suite("Calls over the real protocol", .serialized)
struct CallsTests {
    @Test func ringAcceptRelayHangupAndRecord() throws {
        let (server, port, database) = try startProtocolServer {
            $0.calls.ringTimeout = 30
            $0.calls.turnURIs = ["stun:127.0.0.1:3478", "turn:127.0.0.1:3478?transport=udp"]
            $0.calls.turnSecret = "s3cret"
        }
        defer { stop(server); database.close() }
        let c = try CallCast(port)
        // TURN credentials before any call (a browser creates its offer with its ICE servers), in RTCIceServer shape.
        let turn = try #require(ok(try c.a1.call("call.turn")))
        let servers = try #require(turn["ice_servers"] as? [[String: Any]])
        #expect(servers.count == 2)
        #expect(servers.first?["urls"] as? [String] == ["stun:127.0.0.1:3478"] && servers.first?["username"] == nil)
        #expect(servers.last?["urls"] as? [String] == ["turn:127.0.0.1:3478?transport=udp"])
        #expect((servers.last?["username"] as? String)?.hasSuffix(":\(c.ann.id)") == true)
        #expect(servers.last?["credential"] as? String == turn["password"] as? String && turn["password"] != nil)
        #expect(turn["ttl"] as? Int == 3600)
        let (callId, reply) = try c.invite(video: true)
        #expect(reply["disposition"] as? String == "ringing")
        // The caller's own offer is not echoed back to it.
        #expect((reply["call"] as? [String: Any])?["offer"] == nil)
        // The time left of the ring (30 s here), so a ringing screen can count down whatever the server's timeout.
        let replyRing = (reply["call"] as? [String: Any])?["ring_ms"] as? Int ?? -1
        #expect(replyRing > 25_000 && replyRing <= 30_000)
        // Every callee device rings with the caller's profile, the media and the offer.
        for device in [c.b1, c.b2] {
            let ring = try device.event("call.ring")
            #expect(ring["call_id"] as? String == callId)
            #expect(ring["media"] as? String == "video")
            #expect(ring["offer"] as? String == "v=0 offer")
            #expect((ring["caller"] as? [String: Any])?["display_name"] as? String == "Ann")
            let left = ring["ring_ms"] as? Int ?? -1
            #expect(left > 25_000 && left <= 30_000)
        }
        #expect((try c.a1.event("call.ringing"))["devices"] as? Int == 2)
        // The caller cannot accept; a stranger cannot see the call.
        #expect(errorCode(try c.a2.call("call.accept", ["call_id": callId])) != nil)
        #expect(errorCode(try c.zed.client.call("call.accept", ["call_id": callId])) == "not_found")
        // Candidates sent while ringing are held for the accepting device.
        let early =
            #"{"candidate":"candidate:1 1 udp 2122260223 127.0.0.1 5000 typ host","sdpMid":"0","sdpMLineIndex":0}"#
        _ = try #require(
            ok(try c.a1.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": early])))
        // The first accept wins; the other device is told.
        let acceptReply = try #require(ok(try c.b1.call("call.accept", ["call_id": callId, "answer": "v=0 answer"])))
        #expect((acceptReply["call"] as? [String: Any])?["offer"] == nil)
        #expect(errorCode(try c.b2.call("call.accept", ["call_id": callId])) == "invalid_state")
        #expect((try c.b2.event("call.answered_elsewhere"))["call_id"] as? String == callId)
        let accepted = try c.a1.event("call.accepted")
        #expect(accepted["answer"] as? String == "v=0 answer")
        #expect((try c.b1.event("call.signal"))["payload"] as? String == early)
        // Relay only between a1 and b1, both ways; the payload travels untouched. End of candidates: an empty
        // candidate.
        let endOfCandidates = #"{"candidate":"","sdpMid":"0","sdpMLineIndex":0}"#
        _ = try #require(
            ok(try c.b1.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": endOfCandidates])))
        let relayed = try c.a1.event("call.signal")
        #expect(relayed["kind"] as? String == "ice_candidate")
        #expect(relayed["payload"] as? String == endOfCandidates)
        // A candidate payload must be the JSON of an RTCIceCandidateInit.
        for bad in [
            "candidate:1 1 udp 1 127.0.0.1 5000 typ host", "[]", #"{"candidate":1}"#, #"{"sdpMid":"0"}"#,
            #"{"candidate":"c","sdpMLineIndex":70000}"#, #"{"candidate":"c","sdpMLineIndex":-9223372036854775808}"#,
            #"{"candidate":"c","sdpMLineIndex":1e30}"#, #"{"candidate":"c","sdpMid":5}"#,
        ] {
            #expect(
                errorCode(try c.a1.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": bad]))
                    == "bad_request", "\(bad)")
        }
        _ = try #require(
            ok(try c.a1.call("call.signal", ["call_id": callId, "kind": "offer", "payload": "v=0 renegotiate"])))
        #expect((try c.b1.event("call.signal"))["kind"] as? String == "offer")
        // Isolation: the other callee device, the caller's other device and a stranger can neither send nor receive.
        #expect(
            errorCode(try c.b2.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": early]))
                == "forbidden")
        #expect(
            errorCode(try c.a2.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": early]))
                == "forbidden")
        #expect(
            errorCode(
                try c.zed.client.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": early]))
                == "not_found")
        #expect(
            errorCode(try c.a1.call("call.signal", ["call_id": callId, "kind": "smoke", "payload": "x"]))
                == "bad_request")
        #expect(
            errorCode(
                try c.a1.call(
                    "call.signal",
                    ["call_id": callId, "kind": "offer", "payload": String(repeating: "x", count: 20_000)]))
                == "payload_too_large")
        // Barrier: every relay is handed to the outbox on the call queue, and each of these devices' own refused
        // signal was answered from that queue after the relays above: what it would have sent them came before that
        // reply (kept by `call`); the ping covers their loops.
        for device in [c.b2, c.a2, c.zed.client] { #expect(try device.noEventBeforeBarrier("call.signal")) }
        // TURN credentials for a call: a party of a live call only.
        #expect(ok(try c.b1.call("call.turn", ["call_id": callId])) != nil)
        #expect(errorCode(try c.zed.client.call("call.turn", ["call_id": callId])) == "not_found")
        // Hang up: the other party is told with the duration. (Not a wait for anything: the call lasts 50 ms of real
        // time, which the duration below must show.)
        usleep(50_000)
        _ = try #require(ok(try c.b1.call("call.hangup", ["call_id": callId])))
        let ended = try c.a1.event("call.ended")
        #expect(ended["reason"] as? String == "hangup")
        #expect((ended["duration_ms"] as? Int ?? 0) >= 50)
        #expect(errorCode(try c.a1.call("call.hangup", ["call_id": callId])) == "invalid_state")
        // The record: a row in the call history and a system message in the one-to-one conversation.
        // Written by the call queue after the hang-up's reply: waited for (bounded), not for a fixed second.
        var history: [[String: Any]] = []
        #expect(
            waitUntil {
                history = (try? c.a1.call("call.history")).flatMap { ok($0)?["calls"] as? [[String: Any]] } ?? []
                return !history.isEmpty
            })
        #expect(history.first?["outcome"] as? String == "completed")
        #expect(history.first?["media"] as? String == "video")
        let message = try #require(try c.b2.messages(count: 1).first)
        #expect((message["system"] as? [String: Any])?["event"] as? String == "call")
        #expect((message["system"] as? [String: Any])?["outcome"] as? String == "completed")
        // A new name shows in the next ring; after unfriending, calls are refused (friend lists kept in memory).
        _ = try #require(ok(try c.a1.call("profile.update", ["display_name": "Annie"])))
        let (second, _) = try c.invite()
        var ring: [String: Any] = [:]
        repeat { ring = try c.b1.event("call.ring") } while ring["call_id"] as? String != second
        #expect((ring["caller"] as? [String: Any])?["display_name"] as? String == "Annie")
        _ = try #require(ok(try c.a1.call("call.cancel", ["call_id": second])))
        _ = try #require(ok(try c.b1.call("friends.remove", ["user_id": c.ann.id])))
        #expect(errorCode(try c.a1.call("call.invite", ["callee_id": c.bob.id])) == "not_friends")
    }

    /// Integers and cursors from clients (and extreme settings) are checked before any arithmetic: answered, never a
    /// trap. (A signal bucket that never refills reported UInt64.max ns, and rounding it up to milliseconds trapped.)
    @Test func extremeValuesAreAnsweredNotTrapped() throws {
        let (server, port, database) = try startProtocolServer {
            $0.calls.ringTimeout = 30
            $0.calls.signalsPerSecond = 1e-30
            $0.calls.signalBurst = 1
        }
        defer { stop(server); database.close() }
        let c = try CallCast(port)
        for limit in [Int64.min, -1, 0, 101, Int64.max] {
            #expect(errorCode(try c.a1.call("call.history", ["limit": limit])) == "bad_request", "limit \(limit)")
        }
        for before in ["", "a\u{0}b", String(repeating: "9", count: 65), "99999999-01-01", "not a time"] {
            #expect(
                errorCode(try c.a1.call("call.history", ["before": before])) == "bad_request",
                "before \(before.debugDescription)")
        }
        for before in ["-infinity", "infinity", "2026-11-24T00:00:00.000Z"] {
            #expect(ok(try c.a1.call("call.history", ["before": before])) != nil, "before \(before)")
        }
        let (callId, _) = try c.invite()
        _ = try #require(
            ok(try c.a1.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": testCandidate])))
        let limited = try c.a1.call(
            "call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": testCandidate])
        #expect(errorCode(limited) == "rate_limited")
        #expect(((limited["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        #expect(ok(try c.a1.call("ping")) != nil)
    }

    /// `call.turn` is limited per user.
    @Test func turnCredentialsAreRateLimitedPerUser() throws {
        let (server, port, database) = try startProtocolServer {
            $0.calls.turnURIs = ["turn:127.0.0.1:3478"]
            $0.calls.turnRequestsPerMinute = 2
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "Ann")
        let other = try makeUser(port, "Bob")
        for _ in 0..<2 { #expect(ok(try ann.client.call("call.turn")) != nil) }
        let refused = try ann.client.call("call.turn")
        #expect(errorCode(refused) == "rate_limited")
        #expect(((refused["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        // Without a secret: the URIs only, in one ICE server.
        let turn = try #require(ok(try other.client.call("call.turn")))
        #expect((turn["ice_servers"] as? [[String: Any]])?.first?["urls"] as? [String] == ["turn:127.0.0.1:3478"])
        #expect(turn["username"] == nil)
    }

    /// A call's history row is written before its `call.ended` goes out: asked at once on receiving it, the
    /// history lists the call (it lagged once by 68 ms).
    @Test func historyListsTheCallOnceItsEndIsOut() throws {
        let (server, port, database) = try startProtocolServer { $0.calls.ringTimeout = 30 }
        defer { stop(server); database.close() }
        let c = try CallCast(port)
        for attempt in 0..<30 {
            let (callId, _) = try c.invite()
            _ = try #require(ok(try c.b1.call("call.decline", ["call_id": callId])))
            var ended: [String: Any] = [:]
            repeat { ended = try c.a1.event("call.ended") } while ended["call_id"] as? String != callId
            let history = try #require(ok(try c.a1.call("call.history", ["limit": 1]))?["calls"] as? [[String: Any]])
            #expect(history.first?["call_id"] as? String == callId, "attempt \(attempt)")
        }
    }

    @Test func declineCancelBusyUnavailableAndGlare() throws {
        let (server, port, database) = try startProtocolServer { $0.calls.ringTimeout = 30 }
        defer { stop(server); database.close() }
        let c = try CallCast(port)
        // Decline from any ringing device stops every device and tells the caller.
        let (declined, _) = try c.invite()
        _ = try c.b1.event("call.ring")
        _ = try c.b2.event("call.ring")
        _ = try #require(ok(try c.b2.call("call.decline", ["call_id": declined])))
        #expect((try c.a1.event("call.ended"))["reason"] as? String == "declined")
        #expect((try c.b1.event("call.ended"))["reason"] as? String == "declined")
        // Cancel by the caller before an answer.
        let (cancelled, _) = try c.invite()
        #expect(errorCode(try c.b1.call("call.cancel", ["call_id": cancelled])) == "forbidden")
        _ = try #require(ok(try c.a1.call("call.cancel", ["call_id": cancelled])))
        for device in [c.b1, c.b2] {
            let ended = try device.event("call.ended")
            if ended["call_id"] as? String == cancelled { #expect(ended["reason"] as? String == "cancelled") }
        }
        // Busy: Bob is in a call with Ann; Carol's call to Bob ends at once.
        let carol = try makeUser(port, "Carol")
        try befriend(carol, c.bob)
        let (active, _) = try c.invite()
        _ = try #require(ok(try c.b1.call("call.accept", ["call_id": active])))
        let busy = try #require(ok(try carol.client.call("call.invite", ["callee_id": c.bob.id])))
        #expect(busy["disposition"] as? String == "busy")
        #expect(errorCode(try c.a1.call("call.invite", ["callee_id": c.bob.id])) == "already_in_call")
        _ = try #require(ok(try c.a1.call("call.hangup", ["call_id": active])))
        // Not friends, and calling oneself.
        #expect(errorCode(try c.zed.client.call("call.invite", ["callee_id": c.bob.id])) == "not_friends")
        #expect(errorCode(try c.a1.call("call.invite", ["callee_id": c.ann.id])) == "self_call")
        // Glare: Bob calls Ann while Ann's call to Bob rings: one call, accepted from Bob's inviting device.
        let (first, _) = try c.invite()
        let glare = try #require(ok(try c.b2.call("call.invite", ["callee_id": c.ann.id])))
        #expect(glare["disposition"] as? String == "joined")
        #expect((glare["call"] as? [String: Any])?["offer"] as? String == "v=0 offer")  // Bob's device answers it
        #expect((glare["call"] as? [String: Any])?["call_id"] as? String == first)
        var accepted: [String: Any] = [:]
        repeat { accepted = try c.a1.event("call.accepted") } while accepted["call_id"] as? String != first
        _ = try #require(ok(try c.b2.call("call.hangup", ["call_id": first])))
        // Unavailable: a callee without devices; recorded as missed.
        let dan = try makeUser(port, "Dan")
        try befriend(c.ann, dan)
        let open = server.connectionCount
        dan.client.socket.shutdownBoth()
        // The server has closed Dan's only connection (and so forgotten the device) once the count drops.
        #expect(waitUntil { server.connectionCount < open })
        let missed = try #require(ok(try c.a1.call("call.invite", ["callee_id": dan.id])))
        #expect(missed["disposition"] as? String == "unavailable")
    }

    @Test func timeoutAndConnectionLossAndVanishingCaller() throws {
        let (server, port, database) = try startProtocolServer {
            $0.calls.ringTimeout = 0.6
            $0.calls.reconnectGrace = 0.4
        }
        defer { stop(server); database.close() }
        let c = try CallCast(port)
        // Nobody answers: at the ring timeout the caller and every ringing device are told.
        let started = Date()
        let (timedOut, _) = try c.invite()
        for device in [c.a1, c.b1, c.b2] {
            var ended: [String: Any] = [:]
            repeat { ended = try device.event("call.ended") } while ended["call_id"] as? String != timedOut
            #expect(ended["reason"] as? String == "timeout")
        }
        #expect(Date().timeIntervalSince(started) >= 0.6)
        #expect(errorCode(try c.b1.call("call.accept", ["call_id": timedOut])) == "invalid_state")
        // A party's device vanishes during the call: the other is told, and after the grace period the call ends.
        let (lost, _) = try c.invite()
        _ = try #require(ok(try c.b1.call("call.accept", ["call_id": lost])))
        c.b1.socket.shutdownBoth()
        let gone = try c.a1.event("call.peer_connection_lost")
        #expect(gone["call_id"] as? String == lost)
        var ended: [String: Any] = [:]
        repeat { ended = try c.a1.event("call.ended") } while ended["call_id"] as? String != lost
        #expect(ended["reason"] as? String == "connection_lost")
        // Coming back within the grace period resumes the call.
        let (resumed, _) = try c.invite()
        _ = try #require(ok(try c.b2.call("call.accept", ["call_id": resumed])))
        c.b2.socket.shutdownBoth()
        _ = try c.a1.event("call.peer_connection_lost")
        let back = try ProtocolClient(port: port)
        _ = try #require(
            ok(try back.call("login", ["phone": c.bob.phone, "password": c.bob.password, "device": "bob-3"])))
        // A new login is a new device: the call still ends, since bob-2's session did not come back.
        var outcome: [String: Any] = [:]
        repeat { outcome = try c.a1.event("call.ended") } while outcome["call_id"] as? String != resumed
        #expect(outcome["reason"] as? String == "connection_lost")
        // The caller vanishing while ringing cancels the call.
        let (vanished, _) = try c.invite()
        _ = try back.event("call.ring")
        c.a1.socket.shutdownBoth()
        var cancelled: [String: Any] = [:]
        repeat { cancelled = try back.event("call.ended") } while cancelled["call_id"] as? String != vanished
        #expect(cancelled["reason"] as? String == "cancelled")
    }

    @Test func reconnectingTheSameSessionResumesTheCall() throws {
        let (server, port, database) = try startProtocolServer {
            $0.calls.ringTimeout = 30
            $0.calls.reconnectGrace = 3
        }
        defer { stop(server); database.close() }
        let c = try CallCast(port)
        let (callId, _) = try c.invite()
        _ = try #require(ok(try c.b1.call("call.accept", ["call_id": callId])))
        c.b1.socket.shutdownBoth()
        _ = try c.a1.event("call.peer_connection_lost")
        let back = try reconnect(port, c.bob)  // the same session token: the same device
        let resumed = try back.event("call.resumed")
        #expect((resumed["call"] as? [String: Any])?["state"] as? String == "active")
        _ = try c.a1.event("call.peer_reconnected")
        _ = try #require(
            ok(try back.call("call.signal", ["call_id": callId, "kind": "ice_candidate", "payload": testCandidate])))
        #expect((try c.a1.event("call.signal"))["payload"] as? String == testCandidate)
    }

    /// Client-chosen call ids name a call for their caller only: another user's live call id (client-chosen or
    /// the server's) never answers `duplicate_call_id`, and every call keeps its own record. Call ids with control
    /// characters (U+0000 merged call records in PostgreSQL), spaces or over 64 bytes are refused.
    @Test func callIdsAreScopedPerCallerAndValidated() throws {
        let (server, port, database) = try startProtocolServer { $0.calls.ringTimeout = 30 }
        defer { stop(server); database.close() }
        let c = try CallCast(port)
        let cleo = try makeUser(port, "Cleo")
        try befriend(c.zed, cleo)
        let annCall = try #require(ok(try c.a1.call("call.invite", ["callee_id": c.bob.id, "call_id": "shared-1"])))
        let annReal = try #require((annCall["call"] as? [String: Any])?["call_id"] as? String)
        // Zed (a stranger to Ann and Bob) picks Ann's id, then the id the server gave Ann's call: both are his own
        // names.
        let zedCall = try #require(
            ok(try c.zed.client.call("call.invite", ["callee_id": cleo.id, "call_id": "shared-1"])))
        let zedReal = try #require((zedCall["call"] as? [String: Any])?["call_id"] as? String)
        #expect(zedReal != annReal)
        #expect(ok(try c.zed.client.call("call.cancel", ["call_id": "shared-1"])) != nil)
        let zedAgain = try c.zed.client.call("call.invite", ["callee_id": cleo.id, "call_id": annReal])
        #expect(ok(zedAgain) != nil, "\(zedAgain)")
        // His own, ended.
        #expect(errorCode(try c.zed.client.call("call.hangup", ["call_id": "shared-1"])) == "invalid_state")
        #expect(ok(try c.zed.client.call("call.hangup", ["call_id": annReal])) != nil)  // his own alias, not Ann's call
        // Ann's call still rings; her own name works for her, a repeat of it is a duplicate of her own.
        #expect(
            errorCode(try c.a1.call("call.invite", ["callee_id": c.bob.id, "call_id": "shared-1"]))
                == "duplicate_call_id")
        // Ann's name, not Bob's.
        #expect(errorCode(try c.b1.call("call.accept", ["call_id": "shared-1"])) == "not_found")
        #expect(ok(try c.b1.call("call.accept", ["call_id": annReal])) != nil)
        #expect(ok(try c.a1.call("call.hangup", ["call_id": "shared-1"])) != nil)
        // Invalid ids: refused before anything happens.
        for bad in ["a\u{0}b", "\u{0}", "tab\there", "with space", "", String(repeating: "x", count: 65), "é"] {
            #expect(
                errorCode(try c.a1.call("call.invite", ["callee_id": c.bob.id, "call_id": bad])) == "bad_request",
                "\(bad.debugDescription)")
            #expect(errorCode(try c.a1.call("call.hangup", ["call_id": bad])) == "bad_request")
        }
        // Each call has its own history row.
        var ids: Set<String> = []
        #expect(
            waitUntil {
                let rows = try? database.pool.connectionForTests { db in
                    try db.execute(
                        cached: "SELECT id FROM calls WHERE id = ANY($1::text[])", [.text("{\(annReal),\(zedReal)}")]
                    ).map { $0.string(0) ?? "" }
                }
                ids = Set(rows ?? [])
                return ids.count == 2
            })
        #expect(ids == [annReal, zedReal])
    }

    @Test func shutdownEndsCallsAndWritesTheirRecords() throws {
        let (server, port, database) = try startProtocolServer { $0.calls.ringTimeout = 30 }
        let c = try CallCast(port)
        let (callId, _) = try c.invite()
        _ = try #require(ok(try c.b1.call("call.accept", ["call_id": callId])))
        stop(server)
        defer { database.close() }
        #expect((try c.a1.event("call.ended"))["reason"] as? String == "server_shutdown")
        let rows = try database.pool.connectionForTests { db in
            try db.execute(cached: "SELECT outcome FROM calls WHERE id = $1", [.text(callId)]).map {
                $0.string(0) ?? ""
            }
        }
        #expect(rows == ["server_shutdown"])
    }
}

extension DatabasePool {
    /// Runs `body` on a leased connection and waits (tests only).
    func connectionForTests<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Unchecked(NSMutableArray())
        withConnection(on: DispatchQueue.global(), body) { result in
            box.value.add(result)
            done.signal()
        }
        done.wait()
        guard let result = box.value.firstObject as? Result<T, any Error> else { throw TestSocketError.eof }
        return try result.get()
    }
}
