//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardCore
@testable import SwitchboardDomain

private let oneSecond: UInt64 = 1_000_000_000

@Suite("Presence tracker (injected clock)")
struct PresenceTrackerTests {
    @Test func mostAvailableDeviceWinsAndChangesArePublishedOnce() {
        var p = PresenceTracker(grace: 5 * oneSecond)
        #expect(p.connect(userId: 1, device: 10, now: 0) == [.init(userId: 1, status: .online)])
        #expect(p.connect(userId: 1, device: 11, now: 1).isEmpty)
        #expect(p.set(userId: 1, device: 10, status: .away, now: 2).isEmpty)  // device 11 is still online
        #expect(p.set(userId: 1, device: 11, status: .away, now: 3) == [.init(userId: 1, status: .away)])
        #expect(p.set(userId: 1, device: 10, status: .online, now: 4) == [.init(userId: 1, status: .online)])
        // A device that closes takes its status with it.
        #expect(p.disconnect(userId: 1, device: 10, now: 5) == [.init(userId: 1, status: .away)])
        #expect(p.status(of: 1) == .away)
        #expect(p.availableCount == 1)
        // Setting the status of an unknown device changes nothing.
        #expect(p.set(userId: 1, device: 99, status: .online, now: 6).isEmpty)
    }

    @Test func offlineWaitsForTheGraceDeadlineInclusive() {
        var p = PresenceTracker(grace: 5 * oneSecond)
        _ = p.connect(userId: 1, device: 10, now: 0)
        #expect(p.disconnect(userId: 1, device: 10, now: 10 * oneSecond).isEmpty)
        #expect(p.status(of: 1) == .online)
        #expect(p.nextDeadline == 15 * oneSecond)
        #expect(p.tick(now: 15 * oneSecond - 1).isEmpty)
        #expect(p.tick(now: 15 * oneSecond) == [.init(userId: 1, status: .offline)])
        #expect(p.status(of: 1) == .offline)
        #expect(p.nextDeadline == nil)
        #expect(p.availableCount == 0)
    }

    @Test func aQuickReconnectDoesNotFlap() {
        var p = PresenceTracker(grace: 5 * oneSecond)
        _ = p.connect(userId: 1, device: 10, now: 0)
        _ = p.disconnect(userId: 1, device: 10, now: oneSecond)
        #expect(p.connect(userId: 1, device: 11, now: 2 * oneSecond).isEmpty)  // still online: nothing to publish
        #expect(p.tick(now: 100 * oneSecond).isEmpty)  // the stale deadline is ignored
        #expect(p.status(of: 1) == .online)
        // An away user reconnecting comes back online (a new device starts online).
        _ = p.set(userId: 1, device: 11, status: .away, now: 3 * oneSecond)
        _ = p.disconnect(userId: 1, device: 11, now: 4 * oneSecond)
        #expect(p.connect(userId: 1, device: 12, now: 5 * oneSecond) == [.init(userId: 1, status: .online)])
    }

    @Test func manyUsersExpireInIdOrder() {
        var p = PresenceTracker(grace: oneSecond)
        for u in (1...5).reversed() {
            _ = p.connect(userId: Int64(u), device: UInt64(u), now: 0)
            _ = p.disconnect(userId: Int64(u), device: UInt64(u), now: 0)
        }
        #expect(p.availableCount == 5)
        #expect(p.tick(now: oneSecond).map(\.userId) == [1, 2, 3, 4, 5])
        #expect(p.availableCount == 0)
    }

    /// The deadlines are kept in order with stale ones dropped at the head (`nextDeadline` is one look): against a
    /// plain model of who is due when, over random connects, disconnects and ticks, with a clock that sometimes
    /// steps back a little.
    @Test func deadlinesMatchAModelOverRandomOperations() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let grace: UInt64 = 50
            var p = PresenceTracker(grace: grace)
            var devices: [Int64: Set<UInt64>] = [:]
            var offlineAt: [Int64: UInt64] = [:]
            var clock: UInt64 = 1_000
            for _ in 0..<3_000 {
                clock += UInt64.random(in: 0...4, using: &rng)
                let now = clock - UInt64.random(in: 0...2, using: &rng)
                let user = Int64.random(in: 1...40, using: &rng)
                let device = UInt64.random(in: 1...3, using: &rng)
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<4:
                    _ = p.connect(userId: user, device: device, now: now)
                    devices[user, default: []].insert(device)
                    offlineAt[user] = nil
                case 4..<8:
                    _ = p.disconnect(userId: user, device: device, now: now)
                    if devices[user]?.remove(device) != nil, devices[user]!.isEmpty {
                        devices[user] = nil
                        offlineAt[user] = now + grace
                    }
                default:
                    let due = offlineAt.filter { $0.value <= now }.keys.sorted()
                    for u in due { offlineAt[u] = nil }
                    #expect(p.tick(now: now).map(\.userId) == due)
                }
                #expect(p.nextDeadline == offlineAt.values.min())
                #expect(p.availableCount == devices.count + offlineAt.count)
            }
        }
    }
}

@Suite("Typing tracker (injected clock)")
struct TypingTrackerTests {
    let key = TypingTracker.Key(conversationId: 7, userId: 1, activity: "typing")

    @Test func startRefreshStopAndExpiry() {
        var t = TypingTracker(ttl: 6 * oneSecond)
        let started = t.start(key, now: 0)
        let refreshedIsNew = t.start(key, now: 2 * oneSecond)  // a refresh
        #expect(started && !refreshedIsNew)
        #expect(t.nextDeadline == 8 * oneSecond)
        #expect(t.tick(now: 8 * oneSecond - 1).isEmpty)
        #expect(t.tick(now: 8 * oneSecond) == [key])
        let stoppedExpired = t.stop(key)
        let restarted = t.start(key, now: 9 * oneSecond)
        let stopped = t.stop(key)
        #expect(!stoppedExpired && restarted && stopped)
        #expect(t.activeCount == 0)
    }

    @Test func aMessageStopsEveryIndicatorOfItsSenderInThatConversation() {
        var t = TypingTracker(ttl: oneSecond)
        let recording = TypingTracker.Key(conversationId: 7, userId: 1, activity: "recording")
        let other = TypingTracker.Key(conversationId: 8, userId: 1, activity: "typing")
        _ = t.start(key, now: 0)
        _ = t.start(recording, now: 0)
        _ = t.start(other, now: 0)
        #expect(t.stopAll(conversationId: 7, userId: 1) == [recording, key])
        #expect(t.activeCount == 1)
    }
}

@Suite("Message store helpers")
struct MessageStoreHelperTests {
    @Test func arrayLiterals() {
        #expect(MessageStore.bigintArray([1, nil, -3]) == "{1,NULL,-3}")
        #expect(MessageStore.textArray(["a", nil, "q\"b\\c", "{x,y}"]) == #"{"a",NULL,"q\"b\\c","{x,y}"}"#)
    }
}
