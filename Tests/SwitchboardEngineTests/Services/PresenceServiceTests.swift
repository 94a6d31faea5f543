//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import Testing

@testable import SwitchboardServer

/// `PresenceService`: the statuses a client may set, the activities it may show, and the typing bucket on a manual
/// clock (the hand-offs themselves are `PresenceHubTests`' and `MessageHubTests`' subject).
@Suite("Presence service (a manual clock)")
struct PresenceServiceTests {
    let clock = ManualClock()

    @Test func onlyOnlineAndAwayMayBeSet() throws {
        let presence = PresenceService(typingBurst: 10, typingPerSecond: 4, clock: clock)
        #expect(try presence.status("online") == .online)
        #expect(try presence.status("away") == .away)
        // Offline is the hub's to decide (the last device leaving).
        #expect(throws: PresenceError.invalidStatus) { _ = try presence.status("offline") }
        #expect(throws: PresenceError.invalidStatus) { _ = try presence.status("busy") }
        #expect(PresenceError.invalidStatus.wire.message == "status must be online or away")
    }

    @Test func typingShowsTypingOrRecordingWithinTheBucket() throws {
        let presence = PresenceService(typingBurst: 2, typingPerSecond: 1, clock: clock)
        let ann = Caller(userId: 1)
        #expect(throws: PresenceError.invalidActivity) { _ = try presence.typing(ann, activity: "dancing") }
        #expect(try presence.typing(ann, activity: nil) == "typing")
        #expect(try presence.typing(ann, activity: "recording") == "recording")
        do {
            _ = try presence.typing(ann, activity: nil)
            Issue.record("a typing update beyond the burst was accepted")
        } catch {
            guard case .typingLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 0 && retryAfter <= 1_000)
        }
        // Another user has a bucket of its own; a second later the first has a token again.
        #expect(try presence.typing(Caller(userId: 2), activity: nil) == "typing")
        clock.advance(by: 1)
        #expect(try presence.typing(ann, activity: nil) == "typing")
    }

    @Test func aClusterDividesTheBucketByTheUsersNodes() throws {
        let presence = PresenceService(typingBurst: 4, typingPerSecond: 1, clock: clock)
        // On two nodes each update costs two tokens: two updates here spend the burst.
        let ann = Caller(userId: 3, limitShare: 2)
        _ = try presence.typing(ann, activity: nil)
        _ = try presence.typing(ann, activity: nil)
        #expect(throws: PresenceError.self) { _ = try presence.typing(ann, activity: nil) }
    }
}
