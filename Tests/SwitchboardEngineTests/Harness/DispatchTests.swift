//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore
import Testing

@testable import SwitchboardServer

/// The path of a request without a socket: the router's look-up and authentication rules, admission control's pause
/// and resume, cancellation on close, and the ordered lane, through `ProtocolApplication` on a `TestConnectionPort`.
@Suite("Dispatcher, ordered lane and admission (the connection harness)", .serialized)
struct DispatchTests {
    @Test func theRouterAnswersUnknownOpsMalformedFramesAndTheAuthenticationRules() async throws {
        let h = try Harness()
        defer { h.close() }
        await h.send("sessions.list")
        await h.send("no.such.op")
        await h.receive(Array("{not json".utf8))
        var replies = await h.messages()
        #expect(replies.map(errorCode) == ["not_authenticated", "unknown_op", "bad_request"])
        _ = try await h.authenticate()
        await h.send("authenticate", ["token": "x"])
        await h.send("moments.get", ["moment_id": "seven"])
        await h.send("ping")
        replies = Array(await h.replies(count: 5).suffix(3))
        #expect(errorCode(replies[0]) == "already_authenticated")
        #expect(errorCode(replies[1]) == "bad_request")
        let message = (replies[1]["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("moment_id") == true, "the field is named: \(message ?? "")")
        #expect(replies[2]["ok"] != nil)
    }

    @Test func readingPausesAtTheInFlightLimitAndResumesWhenTheHeldRequestsHaveStarted() async throws {
        let h = try Harness { $0.maxRequestsInFlight = 4 }
        defer { h.close() }
        _ = try await h.authenticate()
        let release = await h.holdDatabase()
        var ids: [Int] = []
        for _ in 0..<6 { ids.append(await h.send("sessions.list")) }
        // Four in flight (each waiting for the database): reading paused at the fourth; the fifth and sixth frames,
        // decoded from the same read, are held.
        #expect(await h.port { $0.readingPaused })
        #expect(await h.port { $0.pauses } == 1)
        #expect(await h.withApp { $0.admission.inFlight } == 4)
        #expect(await h.replies().isEmpty)
        release()
        let replies = await h.replies(count: 6)
        #expect(replies.count == 6)
        #expect(replies.allSatisfy { $0["ok"] != nil })
        #expect(Set(replies.compactMap { $0["re"] as? Int }) == Set(ids))
        #expect(!(await h.port { $0.readingPaused }))
        #expect(await h.withApp { $0.admission.inFlight } == 0)
    }

    @Test func closingCancelsTheReadsStillWaitingForTheDatabase() async throws {
        let h = try Harness()
        defer { h.close() }
        _ = try await h.authenticate()
        let release = await h.holdDatabase()
        for _ in 0..<3 { await h.send("sessions.list") }
        await h.withApp { app in
            h.port.isOpen = false
            app.connectionClosed()
        }
        release()
        // The pool's queue empties without running the cancelled bodies; nothing is answered on a closed connection.
        #expect(await waitFor { h.pool.waiterCount == 0 })
        let rendered = String(decoding: h.server.metrics.render(), as: UTF8.self)
        #expect(rendered.contains("switchboard_requests_cancelled_total 3"))
        #expect(await h.replies().isEmpty)
    }

    @Test func stateChangingRequestsTakeEffectInTheOrderSentWhileReadsOvertakeThem() async throws {
        let h = try Harness()
        defer { h.close() }
        let me = try await h.authenticate()
        let release = await h.holdDatabase()
        let a = await h.send("profile.update", ["display_name": "Ann A"])
        let b = await h.send("profile.update", ["display_name": "Ann B"])
        let c = await h.send("profile.update", ["display_name": "Ann C"])
        let ping = await h.send("ping")
        // The read is answered while the writes wait in the lane behind the held database.
        let early = await h.replies(count: 1)
        #expect(early.compactMap { $0["re"] as? Int } == [ping])
        release()
        let replies = await h.replies(count: 4)
        #expect(replies.compactMap { $0["re"] as? Int } == [ping, a, b, c])
        let stored = try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(cached: "SELECT display_name FROM users WHERE id = $1", [.int(me.userId)])
                .decodeFirst(String.self)
        }
        #expect(stored == "Ann C")
    }

    @Test func aFullLaneAnswersRateLimitedWithARetryTime() async throws {
        let h = try Harness { $0.maxWaitingRequests = 2 }
        defer { h.close() }
        _ = try await h.authenticate()
        let release = await h.holdDatabase()
        // The first runs (waiting for the database), two wait in the lane, the fourth is refused at once.
        for name in ["A", "B", "C", "D"] { await h.send("profile.update", ["display_name": "Ann \(name)"]) }
        let refused = await h.replies(count: 1)
        #expect(refused.map(errorCode) == ["rate_limited"])
        #expect((refused.first?["error"] as? [String: Any])?["retry_after_ms"] as? Int == 100)
        release()
        let replies = await h.replies(count: 4)
        #expect(replies.dropFirst().allSatisfy { $0["ok"] != nil })
    }
}

/// Waits (bounded) until `condition` holds.
private func waitFor(timeout: Double = 10, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
