//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCalls
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import Synchronization
import Testing

@testable import SwitchboardServer

/// How many times the presence memory was asked.
final class Questions: Sendable {
    let count = Mutex(0)
}

/// `CallsService` without sockets or the call queue: the checks before a command is handed over, the invite's
/// friendship and name (the presence engine's memory, else the database), the TURN bucket on a manual clock, and
/// `call.history`'s pages against the test database.
@Suite("Calls service (the test database, a manual clock)")
struct CallsServiceTests {
    let clock = ManualClock()

    /// A service whose presence memory answers `known` (nil: it does not know), counting its questions.
    func service(
        known: (@Sendable (Int64, Int64) -> (friends: Bool, name: String)?)? = nil, asked: Questions? = nil
    ) throws -> CallsService {
        var settings = CallSettings()
        settings.turnRequestsPerMinute = 2
        return CallsService(
            db: try EngineTestDatabase.shared.pool, settings: settings,
            knownCaller: { caller, callee in
                asked?.count.withLock { $0 += 1 }
                return known?(caller, callee)
            }, clock: clock)
    }

    @Test func theChecksBeforeTheCallQueueKeepTheirAnswers() throws {
        let calls = try service()
        #expect(throws: CallsError.invalidCallId) { try calls.checkCallId("") }
        #expect(throws: CallsError.invalidCallId) { try calls.checkCallId("has space") }
        #expect(throws: CallsError.invalidCallId) { try calls.checkCallId(String(repeating: "a", count: 65)) }
        try calls.checkCallId("call-1")
        #expect(throws: CallsError.invalidMedia) {
            _ = try calls.checkInvite(caller: 1, callee: 2, media: "hologram", callId: nil)
        }
        #expect(throws: CallsError.invalidCallId) {
            _ = try calls.checkInvite(caller: 1, callee: 2, media: nil, callId: "a b")
        }
        #expect(throws: CallsError.selfCall) {
            _ = try calls.checkInvite(caller: 1, callee: 1, media: nil, callId: nil)
        }
        #expect(try calls.checkInvite(caller: 1, callee: 2, media: nil, callId: nil) == .voice)
        #expect(try calls.checkInvite(caller: 1, callee: 2, media: "video", callId: "c") == .video)
        let kinds = CallSignalKind.allCases.map(\.rawValue)
        #expect(throws: CallsError.invalidSignalKind(allowed: kinds)) {
            _ = try calls.checkSignal(callId: "c", kind: "smoke", payload: "")
        }
        #expect(
            CallsError.invalidSignalKind(allowed: ["offer", "answer"]).wire
                == ServiceError(.badRequest, "kind must be one of offer, answer"))
        #expect(throws: CallsError.self) {
            _ = try calls.checkSignal(callId: "c", kind: "ice_candidate", payload: "{}")
        }
        #expect(throws: CallsError.invalidCandidate("sdpMLineIndex must be 0 to 65535")) {
            _ = try calls.checkSignal(
                callId: "c", kind: "ice_candidate", payload: #"{"candidate":"","sdpMLineIndex":70000}"#)
        }
        #expect(
            try calls.checkSignal(callId: "c", kind: "ice_candidate", payload: #"{"candidate":""}"#) == .iceCandidate)
        // An oversized candidate is the state machine's to refuse (payload_too_large), not the shape check's.
        let big = String(repeating: "x", count: CallSettings().maxICECandidateBytes + 1)
        #expect(try calls.checkSignal(callId: "c", kind: "ice_candidate", payload: big) == .iceCandidate)
    }

    @Test func theTurnBucketRefillsOnTheClock() throws {
        let calls = try service()
        try calls.admitTurn(userId: 7, limitShare: 1, callId: nil)
        try calls.admitTurn(userId: 7, limitShare: 1, callId: "c-1")
        #expect(throws: CallsError.turnRateLimited(retryAfterMilliseconds: 30_000)) {
            try calls.admitTurn(userId: 7, limitShare: 1, callId: nil)
        }
        // A malformed call id is refused before the bucket is touched.
        #expect(throws: CallsError.invalidCallId) { try calls.admitTurn(userId: 8, limitShare: 1, callId: "") }
        try calls.admitTurn(userId: 8, limitShare: 1, callId: nil)
        clock.advance(by: 30)
        try calls.admitTurn(userId: 7, limitShare: 1, callId: nil)
        #expect(
            CallsError.turnRateLimited(retryAfterMilliseconds: 5).wire
                == ServiceError(.rateLimited, "too many TURN credential requests", extra: ["retry_after_ms": 5]))
    }

    @Test func theInviteAsksThePresenceMemoryFirstAndTheDatabaseWhenItDoesNotKnow() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let asked = Questions()
        // The memory knows the friendship: its name, no database.
        let remembered = try service(known: { _, _ in (true, "Ann in memory") }, asked: asked)
        #expect(try await remembered.callerName(caller: ann, callee: bob) == "Ann in memory")
        // The memory says "not friends": the database decides (a friendship made on another node a moment ago).
        let stale = try service(known: { _, _ in (false, "stale") })
        #expect(try await stale.callerName(caller: ann, callee: bob) == "ann")
        await #expect(throws: CallsError.notFriends) { _ = try await stale.callerName(caller: ann, callee: zed) }
        let unknown = try service()
        #expect(try await unknown.callerName(caller: bob, callee: ann) == "bob")
        await #expect(throws: CallsError.notFriends) { _ = try await unknown.callerName(caller: zed, callee: ann) }
        #expect(asked.count.withLock { $0 } == 1)
    }

    @Test func historyPagesAndItsCursor() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try await db.pool.withConnection { conn in
            for i in 0..<3 {
                try CallRecordRepository.insert(
                    conn, callId: "svc-\(ann)-\(i)", caller: i == 1 ? bob : ann, callee: i == 1 ? ann : bob,
                    media: "voice", outcome: "completed", reason: "hangup",
                    startedAt: start.addingTimeInterval(Double(i)),
                    answeredAt: nil, endedAt: start.addingTimeInterval(Double(i) + 0.5), durationMs: 500)
            }
        }
        let calls = try service()
        await #expect(throws: CallsError.historyLimit) {
            _ = try await calls.history(userId: ann, before: nil, limit: 0)
        }
        await #expect(throws: CallsError.historyLimit) {
            _ = try await calls.history(userId: ann, before: nil, limit: 101)
        }
        await #expect(throws: CallsError.badHistoryCursor) {
            _ = try await calls.history(userId: ann, before: "", limit: nil)
        }
        // Not a time: PostgreSQL refuses it (class 22), the same answer.
        await #expect(throws: CallsError.badHistoryCursor) {
            _ = try await calls.history(userId: ann, before: "yesterday-ish", limit: nil)
        }
        #expect(
            CallsError.badHistoryCursor.wire
                == ServiceError(.badRequest, "before must be an ended_at from an earlier page"))
        let page = try await calls.history(userId: ann, before: nil, limit: 2)
        #expect(page.calls.map(\.callId) == ["svc-\(ann)-2", "svc-\(ann)-1"])
        #expect(page.hasMore)
        let rest = try await calls.history(userId: ann, before: page.calls.last?.endedAt, limit: 2)
        #expect(rest.calls.map(\.callId) == ["svc-\(ann)-0"])
        #expect(!rest.hasMore)
        #expect(try await calls.history(userId: zed, before: nil, limit: nil).calls.isEmpty)
    }

    @Test func theStateMachinesRefusalsKeepTheirWireAnswers() {
        let cases: [(CallError, ServiceError)] = [
            (.notFound, ServiceError(.notFound, "no such call of yours")),
            (.forbidden, ServiceError(.forbidden, "this device or party may not do that")),
            (.invalidState, ServiceError(.invalidState, "the call is not in a state that allows this")),
            (.selfCall, ServiceError(.selfCall, "you cannot call yourself")),
            (.alreadyInCall, ServiceError(.alreadyInCall, "you already have a call in progress")),
            (.duplicateCallID, ServiceError(.duplicateCallId, "this call id is in use")),
            (.tooLarge(limit: 1024), ServiceError(.payloadTooLarge, "the payload is larger than 1024 bytes")),
            (
                .rateLimited(retryAfterNanoseconds: 1_000_001),
                ServiceError(.rateLimited, "too many signals", extra: ["retry_after_ms": 2])
            ),
            (
                .rateLimited(retryAfterNanoseconds: .max),
                ServiceError(
                    .rateLimited, "too many signals", extra: ["retry_after_ms": Int64(UInt64.max / 1_000_000 + 1)])
            ),
            (.candidateBufferFull, ServiceError(.candidateBufferFull, "too many ICE candidates before the answer")),
            (.invalidPayload, ServiceError(.badRequest, "a media signal's payload is voice or video")),
        ]
        for (refusal, wire) in cases {
            #expect(CallsService.refusal(refusal).wire == wire)
            #expect(CallService.serviceError(refusal) == wire)
        }
    }
}
