//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardCalls

@Suite("Invite")
struct InviteTests {
    @Test("An invite rings every online callee device with the offer and tells the caller's device")
    func ringsEveryDevice() throws {
        var registry = CallRegistry()
        let outcome = try registry.invite(
            callID: callA, caller: alice, callerDevice: a1, callee: bob, media: .video,
            calleeOnlineDevices: [b1, b2], offer: "v=0 offer", now: 5 * second
        )
        #expect(outcome.disposition == .ringing)
        #expect(outcome.call.state == .ringing(since: 5 * second, ringingDevices: [b1, b2]))
        #expect(outcome.call.media == .video)
        #expect(outcome.call.offer == "v=0 offer")
        #expect(outcome.call.ringDeadline == 125 * second)
        #expect(
            outcome.effects == [
                .ring(devices: [b1, b2], call: outcome.call),
                .ringing(callID: callA, to: a1, ringingDevices: 2),
            ])
        #expect(registry.liveCallCount == 1)
        #expect(registry.nextDeadline == 125 * second)
        #expect(registry.calls(involving: bob).map(\.id) == [callA])
        #expect(registry.calls(involving: carol).isEmpty)
    }

    @Test("A generated call id is a lowercase version-4 UUID, different each time")
    func generatedID() throws {
        var registry = CallRegistry()
        let first = try registry.invite(
            caller: alice, callerDevice: a1, callee: bob, media: .voice, calleeOnlineDevices: [b1], offer: nil,
            now: 0
        )
        let second = try registry.invite(
            caller: carol, callerDevice: c1, callee: bob, media: .voice, calleeOnlineDevices: [b1], offer: nil,
            now: 0
        )
        let text = first.call.id.rawValue
        #expect(text.count == 36)
        #expect(Array(text)[14] == "4")
        #expect("89ab".contains(Array(text)[19]))
        #expect(text == text.lowercased())
        #expect(first.call.id != second.call.id)
    }

    @Test("No online device: the call ends at once as unavailable and is recorded as missed")
    func noOnlineDevice() throws {
        var registry = CallRegistry()
        let outcome = try registry.invite(
            callID: callA, caller: alice, callerDevice: a1, callee: bob, media: .voice, calleeOnlineDevices: [],
            offer: "v=0", now: 7 * second
        )
        #expect(outcome.disposition == .unavailable)
        #expect(outcome.call.state == .ended(reason: .unavailable))
        let end = try #require(ending(outcome.effects))
        #expect(end.reason == .unavailable)
        #expect(end.notify == [a1])
        let record = try #require(records(outcome.effects).first)
        #expect(records(outcome.effects).count == 1)
        #expect(record.outcome == .missed)
        #expect(record.reason == .unavailable)
        #expect(record.startedAt == 7 * second && record.endedAt == 7 * second)
        #expect(record.durationMilliseconds == 0 && record.answeredAt == nil && record.calleeDevice == nil)
        #expect(registry.liveCallCount == 0)
    }

    @Test("Busy: a callee in an active call ends the invitation at once; its devices do not ring")
    func busy() throws {
        var registry = CallRegistry()
        _ = try registry.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: bob, media: .voice, calleeOnlineDevices: [b1, b2],
            offer: nil, now: 0
        )
        _ = try registry.accept(callB, device: b2, user: bob, answer: nil, now: second)
        let outcome = try registry.invite(
            callID: callA, caller: alice, callerDevice: a1, callee: bob, media: .voice, calleeOnlineDevices: [b1, b2],
            offer: nil, now: 2 * second
        )
        #expect(outcome.disposition == .busy)
        #expect(!outcome.effects.contains { if case .ring = $0 { true } else { false } })
        #expect(ending(outcome.effects)?.reason == .busy)
        #expect(ending(outcome.effects)?.notify == [a1])
        #expect(records(outcome.effects).map(\.outcome) == [.busy])
        #expect(registry.call(callB)?.state == .active(since: second, callerDevice: c1, calleeDevice: b2))
    }

    @Test("A callee whose calls only ring is not busy: both calls ring")
    func ringingIsNotBusy() throws {
        var registry = try ringingRegistry()
        let outcome = try registry.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: bob, media: .voice, calleeOnlineDevices: [b1],
            offer: nil, now: second
        )
        #expect(outcome.disposition == .ringing)
        #expect(registry.liveCallCount == 2)
    }

    @Test(
        "Refused invites change nothing: self call, duplicate id, caller already calling or in a call, oversized offer")
    func refused() throws {
        var registry = try ringingRegistry()
        let before = registry.calls(involving: alice)
        #expect(
            error {
                try registry.invite(
                    caller: alice, callerDevice: a1, callee: alice, media: .voice, calleeOnlineDevices: [a2],
                    offer: nil, now: 0)
            } == .selfCall)
        #expect(
            error {
                try registry.invite(
                    callID: callA, caller: carol, callerDevice: c1, callee: bob, media: .voice,
                    calleeOnlineDevices: [b1], offer: nil, now: 0)
            } == .duplicateCallID)
        #expect(
            error {
                try registry.invite(
                    callID: callB, caller: alice, callerDevice: a2, callee: carol, media: .voice,
                    calleeOnlineDevices: [c1], offer: nil, now: 0)
            } == .alreadyInCall)
        #expect(
            error {
                try registry.invite(
                    callID: callB, caller: carol, callerDevice: c1, callee: alice, media: .voice,
                    calleeOnlineDevices: [a1], offer: String(repeating: "x", count: 16 * 1024 + 1), now: 0)
            } == .tooLarge(limit: 16 * 1024))
        #expect(registry.calls(involving: alice) == before)
        #expect(registry.liveCallCount == 1)

        _ = try registry.accept(callA, device: b1, user: bob, answer: nil, now: second)
        #expect(
            error {
                try registry.invite(
                    callID: callB, caller: bob, callerDevice: b2, callee: carol, media: .voice,
                    calleeOnlineDevices: [c1], offer: nil, now: 2 * second)
            } == .alreadyInCall)
        // Exactly at the limit is fine.
        let outcome = try registry.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: alice, media: .voice, calleeOnlineDevices: [a2],
            offer: String(repeating: "x", count: 16 * 1024), now: 2 * second
        )
        #expect(outcome.disposition == .busy)
    }
}

@Suite("Answer, decline, cancel, hang up")
struct AnswerTests {
    @Test("Accept: the first device wins, the others are told answered elsewhere, the caller gets the answer")
    func acceptFirstWins() throws {
        var registry = try ringingRegistry()
        let effects = try registry.accept(callA, device: b2, user: bob, answer: "v=0 answer", now: 3 * second)
        #expect(
            effects == [
                .answeredElsewhere(callID: callA, devices: [b1]),
                .accepted(callID: callA, to: a1, by: b2, answer: "v=0 answer"),
            ])
        let call = try #require(registry.call(callA))
        #expect(call.state == .active(since: 3 * second, callerDevice: a1, calleeDevice: b2))
        #expect(call.answeredAt == 3 * second && call.acceptedDevice == b2)
        #expect(registry.nextDeadline == nil)
        // The second device loses the race.
        #expect(
            error { try registry.accept(callA, device: b1, user: bob, answer: nil, now: 3 * second) } == .invalidState)
        #expect(error { try registry.decline(callA, device: b1, user: bob, now: 3 * second) } == .invalidState)
        #expect(error { try registry.cancel(callA, device: a1, user: alice, now: 3 * second) } == .invalidState)
        #expect(registry.call(callA) == call)
    }

    @Test("Accept from a single ringing device has no answered-elsewhere effect")
    func acceptAlone() throws {
        var registry = CallRegistry()
        _ = try registry.invite(
            callID: callA, caller: alice, callerDevice: a1, callee: bob, media: .voice, calleeOnlineDevices: [b1],
            offer: nil, now: 0
        )
        let effects = try registry.accept(callA, device: b1, user: bob, answer: nil, now: 1)
        #expect(effects == [.accepted(callID: callA, to: a1, by: b1, answer: nil)])
    }

    @Test("Decline ends the call on every device and tells the caller")
    func decline() throws {
        var registry = try ringingRegistry()
        let effects = try registry.decline(callA, device: b1, user: bob, now: 4 * second)
        let end = try #require(ending(effects))
        #expect(end.reason == .declined)
        #expect(end.notify == [a1, b1, b2])
        #expect(end.duration == 0)
        let record = try #require(records(effects).first)
        #expect(record.outcome == .declined && record.endedAt == 4 * second && record.durationMilliseconds == 0)
        #expect(registry.call(callA)?.state == .ended(reason: .declined))
        #expect(registry.liveCallCount == 0)
    }

    @Test("Cancel by the caller's device ends the call as cancelled")
    func cancel() throws {
        var registry = try ringingRegistry()
        let effects = try registry.cancel(callA, device: a1, user: alice, now: second)
        #expect(ending(effects)?.reason == .cancelled)
        #expect(ending(effects)?.notify == [a1, b1, b2])
        #expect(records(effects).map(\.outcome) == [.cancelled])
    }

    @Test("Hang up ends an active call as completed with the duration from accept to end")
    func hangup() throws {
        var registry = try activeRegistry(now: 10 * second)
        let effects = try registry.hangup(callA, device: b1, user: bob, now: 10 * second + 62_345 * millisecond)
        let end = try #require(ending(effects))
        #expect(end.reason == .hangup)
        #expect(end.notify == [a1, b1])
        #expect(end.duration == 62_345 * millisecond)
        let record = try #require(records(effects).first)
        #expect(record.outcome == .completed)
        #expect(record.durationMilliseconds == 62_345)
        #expect(record.answeredAt == 10 * second)
        #expect(record.calleeDevice == b1)
        #expect(record.startedAt == 10 * second)
    }

    @Test("Hang up while ringing acts as cancel for the caller and decline for a ringing callee device")
    func hangupWhileRinging() throws {
        var registry = try ringingRegistry()
        #expect(ending(try registry.hangup(callA, device: a1, user: alice, now: 1))?.reason == .cancelled)
        var other = try ringingRegistry()
        #expect(ending(try other.hangup(callA, device: b2, user: bob, now: 1))?.reason == .declined)
        var third = try ringingRegistry()
        #expect(error { try third.hangup(callA, device: a2, user: alice, now: 1) } == .forbidden)
        #expect(error { try third.hangup(callA, device: b3, user: bob, now: 1) } == .forbidden)
    }

    @Test("Requests by the wrong party or device are refused and change nothing")
    func wrongParty() throws {
        var registry = try ringingRegistry()
        let snapshot = registry.call(callA)
        #expect(error { try registry.accept(callA, device: a1, user: alice, answer: nil, now: 1) } == .forbidden)
        #expect(error { try registry.decline(callA, device: a1, user: alice, now: 1) } == .forbidden)
        #expect(error { try registry.cancel(callA, device: b1, user: bob, now: 1) } == .forbidden)
        #expect(error { try registry.cancel(callA, device: a2, user: alice, now: 1) } == .forbidden)
        #expect(error { try registry.accept(callA, device: b3, user: bob, answer: nil, now: 1) } == .forbidden)
        #expect(error { try registry.decline(callA, device: b3, user: bob, now: 1) } == .forbidden)
        // A third user learns nothing, not even that the call exists.
        #expect(error { try registry.accept(callA, device: c1, user: carol, answer: nil, now: 1) } == .notFound)
        #expect(error { try registry.decline(callA, device: c1, user: carol, now: 1) } == .notFound)
        #expect(error { try registry.cancel(callA, device: c1, user: carol, now: 1) } == .notFound)
        #expect(error { try registry.hangup(callA, device: c1, user: carol, now: 1) } == .notFound)
        #expect(
            error { try registry.signal(callA, fromDevice: c1, user: carol, kind: .offer, payload: "x", now: 1) }
                == .notFound)
        #expect(error { try registry.accept(CallID("nope"), device: b1, user: bob, answer: nil, now: 1) } == .notFound)
        #expect(
            error {
                try registry.accept(
                    callA, device: b1, user: bob, answer: String(repeating: "a", count: 16 * 1024 + 1), now: 1)
            } == .tooLarge(limit: 16 * 1024))
        #expect(registry.call(callA) == snapshot)
        #expect(registry.nextDeadline == 120 * second)
    }

    @Test(
        "Accepting while one's own outgoing call rings cancels it; a callee of an active call is busy"
    )
    func acceptWithOtherCalls() throws {
        var registry = try ringingRegistry()
        // Bob calls carol while alice's call rings on his devices.
        _ = try registry.invite(
            callID: callB, caller: bob, callerDevice: b2, callee: carol, media: .voice, calleeOnlineDevices: [c1],
            offer: nil, now: second
        )
        let effects = try registry.accept(callA, device: b1, user: bob, answer: nil, now: 2 * second)
        #expect(records(effects).map(\.callID) == [callB])
        #expect(records(effects).map(\.outcome) == [.cancelled])
        #expect(registry.call(callA)?.acceptedDevice == b1)

        // Carol calls alice while alice is in an active call with bob: busy.
        var second = try activeRegistry()
        let busy = try second.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: alice, media: .voice, calleeOnlineDevices: [a2],
            offer: nil, now: 1
        )
        #expect(busy.disposition == .busy)
    }

    @Test("A user with an incoming ringing call who accepts another one while active is refused")
    func acceptWhileActive() throws {
        var registry = try ringingRegistry()
        // Carol calls bob too; bob answers alice, then tries to answer carol.
        _ = try registry.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: bob, media: .voice, calleeOnlineDevices: [b1, b2],
            offer: nil, now: 0
        )
        _ = try registry.accept(callA, device: b1, user: bob, answer: nil, now: second)
        #expect(error { try registry.accept(callB, device: b2, user: bob, answer: nil, now: second) } == .alreadyInCall)
        #expect(registry.call(callB)?.state == .ringing(since: 0, ringingDevices: [b1, b2]))
        // Bob may still decline it.
        #expect(ending(try registry.decline(callB, device: b2, user: bob, now: second))?.reason == .declined)
    }
}

@Suite("Deadlines")
struct DeadlineTests {
    @Test("119.999 s after the invite the call still rings; at exactly 120 s it ends as timeout (missed)")
    func ringTimeout() throws {
        var registry = try ringingRegistry(now: second)
        #expect(registry.tick(now: second + 119_999 * millisecond).isEmpty)
        #expect(registry.call(callA)?.ringingDevices == [b1, b2])
        let effects = registry.tick(now: 121 * second)
        let end = try #require(ending(effects))
        #expect(end.reason == .timeout)
        #expect(end.notify == [a1, b1, b2])
        let record = try #require(records(effects).first)
        #expect(record.outcome == .missed && record.reason == .timeout)
        #expect(record.endedAt == 121 * second)
        #expect(registry.tick(now: 122 * second).isEmpty)
    }

    @Test("The ring timeout is configurable")
    func configurableTimeout() throws {
        var registry = try ringingRegistry(configuration: CallConfiguration(ringTimeout: .seconds(30)))
        #expect(registry.nextDeadline == 30 * second)
        #expect(registry.tick(now: 30 * second - 1).isEmpty)
        #expect(ending(registry.tick(now: 30 * second))?.reason == .timeout)
    }

    @Test("At exactly the deadline the timeout wins over accept, decline and cancel processed at the same instant")
    func deadlineIsInclusive() throws {
        var registry = try ringingRegistry()
        let deadline = 120 * second
        #expect(
            error { try registry.accept(callA, device: b1, user: bob, answer: nil, now: deadline) } == .invalidState)
        #expect(error { try registry.decline(callA, device: b1, user: bob, now: deadline) } == .invalidState)
        #expect(error { try registry.cancel(callA, device: a1, user: alice, now: deadline) } == .invalidState)
        #expect(error { try registry.hangup(callA, device: a1, user: alice, now: deadline) } == .invalidState)
        #expect(
            error {
                try registry.signal(
                    callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "c", now: deadline)
            }
                == .invalidState)
        #expect(registry.deviceDisconnected(a1, user: alice, now: deadline).isEmpty)
        let effects = registry.tick(now: deadline)
        #expect(ending(effects)?.reason == .timeout)
        #expect(records(effects).count == 1)

        // One nanosecond earlier the accept wins, and the tick at the deadline does nothing.
        var early = try ringingRegistry()
        _ = try early.accept(callA, device: b1, user: bob, answer: nil, now: deadline - 1)
        #expect(early.tick(now: deadline).isEmpty)
        #expect(early.call(callA)?.acceptedDevice == b1)
    }

    @Test("Accept and cancel at the same instant: the first processed wins, the second is refused")
    func acceptVersusCancel() throws {
        var acceptFirst = try ringingRegistry()
        _ = try acceptFirst.accept(callA, device: b1, user: bob, answer: nil, now: 5 * second)
        #expect(error { try acceptFirst.cancel(callA, device: a1, user: alice, now: 5 * second) } == .invalidState)
        #expect(acceptFirst.call(callA)?.acceptedDevice == b1)

        var cancelFirst = try ringingRegistry()
        let effects = try cancelFirst.cancel(callA, device: a1, user: alice, now: 5 * second)
        #expect(records(effects).count == 1)
        #expect(
            error { try cancelFirst.accept(callA, device: b1, user: bob, answer: nil, now: 5 * second) }
                == .invalidState)
        #expect(cancelFirst.call(callA)?.state == .ended(reason: .cancelled))
    }

    @Test("An ended call answers its parties with invalidState until it is purged, then notFound")
    func retention() throws {
        var registry = try activeRegistry()
        _ = try registry.hangup(callA, device: a1, user: alice, now: second)
        #expect(registry.nextDeadline == 61 * second)
        #expect(
            error {
                try registry.signal(callA, fromDevice: a1, user: alice, kind: .offer, payload: "x", now: 2 * second)
            }
                == .invalidState)
        #expect(error { try registry.hangup(callA, device: b1, user: bob, now: 2 * second) } == .invalidState)
        #expect(error { try registry.hangup(callA, device: c1, user: carol, now: 2 * second) } == .notFound)
        #expect(registry.tick(now: 61 * second).isEmpty)
        #expect(registry.call(callA) == nil)
        #expect(registry.nextDeadline == nil)
        #expect(error { try registry.hangup(callA, device: a1, user: alice, now: 62 * second) } == .notFound)
    }

    @Test("A call past its grace deadline still makes its parties busy until the tick ends it")
    func expiredGraceStillBusy() throws {
        var registry = try activeRegistry()
        _ = registry.deviceDisconnected(b1, user: bob, now: second)
        let busy = try registry.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: bob, media: .voice, calleeOnlineDevices: [b2],
            offer: nil, now: 11 * second
        )
        #expect(busy.disposition == .busy)
        #expect(
            error {
                try registry.invite(
                    callID: CallID("call-c"), caller: alice, callerDevice: a1, callee: carol, media: .voice,
                    calleeOnlineDevices: [c1], offer: nil, now: 11 * second)
            } == .alreadyInCall)
        #expect(ending(registry.tick(now: 11 * second))?.reason == .connectionLost)
        let rings = try registry.invite(
            callID: CallID("call-d"), caller: carol, callerDevice: c1, callee: bob, media: .voice,
            calleeOnlineDevices: [b2], offer: nil, now: 12 * second
        )
        #expect(rings.disposition == .ringing)
    }

    @Test("nextDeadline is the earliest ring, grace or purge deadline")
    func nextDeadline() throws {
        var registry = try activeRegistry()
        #expect(registry.nextDeadline == nil)
        _ = try registry.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: alice, media: .voice, calleeOnlineDevices: [],
            offer: nil, now: 3 * second
        )
        #expect(registry.nextDeadline == 63 * second)
        _ = registry.deviceDisconnected(b1, user: bob, now: 4 * second)
        #expect(registry.nextDeadline == 14 * second)
    }
}

@Suite("Glare")
struct GlareTests {
    @Test("B inviting A while A's invite to B rings accepts A's call from B's inviting device: one call")
    func glareJoins() throws {
        var registry = try ringingRegistry()
        let outcome = try registry.invite(
            callID: callB, caller: bob, callerDevice: b2, callee: alice, media: .video,
            calleeOnlineDevices: [a1, a2], offer: "v=0 bob's offer", now: 2 * second
        )
        #expect(outcome.disposition == .joinedExisting)
        #expect(outcome.call.id == callA)
        #expect(outcome.call.media == .voice)
        #expect(outcome.call.offer == "v=0 offer")
        #expect(outcome.call.state == .active(since: 2 * second, callerDevice: a1, calleeDevice: b2))
        #expect(
            outcome.effects == [
                .answeredElsewhere(callID: callA, devices: [b1]),
                .accepted(callID: callA, to: a1, by: b2, answer: nil),
            ])
        #expect(registry.liveCallCount == 1)
        #expect(registry.call(callB) == nil)
        // Bob's device answers alice's offer through the relay.
        let relay = try registry.signal(
            callA, fromDevice: b2, user: bob, kind: .answer, payload: "v=0 answer", now: 3 * second
        )
        #expect(relays(relay).map(\.to) == [a1])
    }

    @Test("Glare is symmetric: whichever invite is processed first becomes the call")
    func glareSymmetric() throws {
        var registry = CallRegistry()
        _ = try registry.invite(
            callID: callB, caller: bob, callerDevice: b1, callee: alice, media: .voice, calleeOnlineDevices: [a1],
            offer: nil, now: 0
        )
        let outcome = try registry.invite(
            callID: callA, caller: alice, callerDevice: a1, callee: bob, media: .voice, calleeOnlineDevices: [b1],
            offer: nil, now: 0
        )
        #expect(outcome.disposition == .joinedExisting)
        #expect(outcome.call.id == callB)
        #expect(outcome.call.caller == bob)
        #expect(registry.liveCallCount == 1)
        #expect(outcome.effects == [.accepted(callID: callB, to: b1, by: a1, answer: nil)])
    }

    @Test("After the first call's deadline the second invite is a new call, not glare")
    func noGlareAfterDeadline() throws {
        var registry = try ringingRegistry()
        let outcome = try registry.invite(
            callID: callB, caller: bob, callerDevice: b2, callee: alice, media: .voice, calleeOnlineDevices: [a1],
            offer: nil, now: 120 * second
        )
        #expect(outcome.disposition == .ringing)
        #expect(outcome.call.id == callB)
        #expect(ending(registry.tick(now: 120 * second))?.reason == .timeout)
        #expect(registry.liveCallCount == 1)
    }
}

@Suite("Signalling")
struct SignallingTests {
    @Test("Signals travel only between the caller's device and the accepting device")
    func relayBetweenParties() throws {
        var registry = try activeRegistry()
        let fromCaller = try registry.signal(callA, fromDevice: a1, user: alice, kind: .offer, payload: "o", now: 1)
        #expect(
            fromCaller == [
                .relay(callID: callA, to: b1, from: a1, signal: CallSignal(kind: .offer, payload: "o"))
            ])
        let fromCallee = try registry.signal(
            callA, fromDevice: b1, user: bob, kind: .iceCandidate, payload: "candidate:1", now: 2
        )
        #expect(relays(fromCallee).map(\.to) == [a1])
        #expect(relays(fromCallee).map(\.kind) == [.iceCandidate])
        for kind in CallSignalKind.allCases where kind != .media {
            let effects = try registry.signal(callA, fromDevice: a1, user: alice, kind: kind, payload: "p", now: 3)
            #expect(relays(effects).map(\.to) == [b1])
        }
    }

    @Test("Isolation: the other callee devices, other caller devices and third users get errors and no relay")
    func isolation() throws {
        var registry = try activeRegistry()
        #expect(
            error { try registry.signal(callA, fromDevice: b2, user: bob, kind: .offer, payload: "x", now: 1) }
                == .forbidden)
        #expect(
            error { try registry.signal(callA, fromDevice: a2, user: alice, kind: .offer, payload: "x", now: 1) }
                == .forbidden)
        #expect(
            error { try registry.signal(callA, fromDevice: c1, user: carol, kind: .offer, payload: "x", now: 1) }
                == .notFound)
        // A device claiming the wrong user is refused too.
        #expect(
            error { try registry.signal(callA, fromDevice: b1, user: alice, kind: .offer, payload: "x", now: 1) }
                == .forbidden)
        #expect(error { try registry.hangup(callA, device: b2, user: bob, now: 1) } == .forbidden)
        #expect(error { try registry.hangup(callA, device: c1, user: carol, now: 1) } == .notFound)
        #expect(registry.call(callA)?.state == .active(since: 0, callerDevice: a1, calleeDevice: b1))
    }

    @Test("While ringing, caller ICE candidates are buffered and flushed in order to the accepting device")
    func iceBuffering() throws {
        var registry = try ringingRegistry()
        #expect(
            try registry.signal(callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "cand-1", now: 1)
                .isEmpty)
        #expect(
            try registry.signal(callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "cand-2", now: 2)
                .isEmpty)
        // Nothing else may be sent while ringing.
        #expect(
            error { try registry.signal(callA, fromDevice: a1, user: alice, kind: .offer, payload: "o", now: 3) }
                == .invalidState)
        #expect(
            error { try registry.signal(callA, fromDevice: b1, user: bob, kind: .iceCandidate, payload: "c", now: 3) }
                == .invalidState)
        #expect(
            error { try registry.signal(callA, fromDevice: a2, user: alice, kind: .iceCandidate, payload: "c", now: 3) }
                == .forbidden)
        let effects = try registry.accept(callA, device: b2, user: bob, answer: "ans", now: 4)
        let flushed = relays(effects)
        #expect(flushed.map(\.to) == [b2, b2])
        #expect(flushed.map(\.from) == [a1, a1])
        #expect(flushed.map(\.payload) == ["cand-1", "cand-2"])
        #expect(flushed.allSatisfy { $0.kind == .iceCandidate })
        // The buffer is empty afterwards: the next candidate is relayed directly.
        let next = try registry.signal(
            callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "cand-3", now: 5)
        #expect(relays(next).map(\.payload) == ["cand-3"])
    }

    @Test("The ringing ICE buffer is bounded")
    func iceBufferBound() throws {
        var registry = try ringingRegistry(configuration: CallConfiguration(maxBufferedCandidates: 3))
        for index in 0..<3 {
            _ = try registry.signal(
                callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "c\(index)", now: UInt64(index))
        }
        #expect(
            error {
                try registry.signal(callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "c3", now: 9)
            }
                == .candidateBufferFull)
        let effects = try registry.accept(callA, device: b1, user: bob, answer: nil, now: 10)
        #expect(relays(effects).map(\.payload) == ["c0", "c1", "c2"])
    }

    @Test("Size limits: SDP 16 KiB, ICE candidate 1 KiB, configurable")
    func sizeLimits() throws {
        var registry = try activeRegistry()
        let sdp = String(repeating: "s", count: 16 * 1024)
        #expect(
            relays(try registry.signal(callA, fromDevice: a1, user: alice, kind: .offer, payload: sdp, now: 1)).count
                == 1)
        #expect(
            error { try registry.signal(callA, fromDevice: a1, user: alice, kind: .answer, payload: sdp + "s", now: 1) }
                == .tooLarge(limit: 16 * 1024))
        let candidate = String(repeating: "c", count: 1024)
        #expect(
            relays(
                try registry.signal(callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: candidate, now: 1)
            )
            .count == 1)
        #expect(
            error {
                try registry.signal(
                    callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: candidate + "c", now: 1)
            } == .tooLarge(limit: 1024))
        // Multi-byte characters count in UTF-8 bytes.
        #expect(
            error {
                try registry.signal(
                    callA, fromDevice: a1, user: alice, kind: .hold,
                    payload: String(repeating: "é", count: 513), now: 1
                )
            } == .tooLarge(limit: 1024))

        var small = try activeRegistry(configuration: CallConfiguration(maxSDPBytes: 10, maxICECandidateBytes: 4))
        #expect(
            error { try small.signal(callA, fromDevice: a1, user: alice, kind: .offer, payload: "12345678901", now: 1) }
                == .tooLarge(limit: 10))
        #expect(
            error { try small.signal(callA, fromDevice: b1, user: bob, kind: .iceCandidate, payload: "12345", now: 1) }
                == .tooLarge(limit: 4))
    }

    @Test("Rate limit: a burst of 100, then 50 signals per second per device")
    func rateLimit() throws {
        var registry = try activeRegistry()
        let start = 5 * second
        for _ in 0..<100 {
            _ = try registry.signal(callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "c", now: start)
        }
        #expect(
            error {
                try registry.signal(callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "c", now: start)
            }
                == .rateLimited(retryAfterNanoseconds: 20 * millisecond))
        // The other device has its own bucket.
        #expect(
            relays(try registry.signal(callA, fromDevice: b1, user: bob, kind: .iceCandidate, payload: "c", now: start))
                .count == 1)
        // 10 ms later, half a token: still limited, 10 ms to wait.
        #expect(
            error {
                try registry.signal(
                    callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "c", now: start + 10 * millisecond
                )
            } == .rateLimited(retryAfterNanoseconds: 10 * millisecond))
        #expect(
            relays(
                try registry.signal(
                    callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: "c", now: start + 20 * millisecond
                )
            ).count == 1)
        // A refused signal (too large) does not take a token.
        var fresh = try activeRegistry(configuration: CallConfiguration(signalsPerSecond: 1, signalBurst: 1))
        _ = error {
            try fresh.signal(
                callA, fromDevice: a1, user: alice, kind: .iceCandidate, payload: String(repeating: "x", count: 2000),
                now: 1)
        }
        #expect(
            relays(try fresh.signal(callA, fromDevice: a1, user: alice, kind: .hold, payload: "", now: 1)).count == 1)
        #expect(
            error { try fresh.signal(callA, fromDevice: a1, user: alice, kind: .unhold, payload: "", now: 2) }
                == .rateLimited(retryAfterNanoseconds: second - 1))
    }

    @Test("A media signal switches voice to video, is relayed, and the record carries the final media")
    func mediaChange() throws {
        var registry = try activeRegistry()
        let effects = try registry.signal(callA, fromDevice: b1, user: bob, kind: .media, payload: "video", now: 1)
        #expect(relays(effects).map(\.payload) == ["video"])
        #expect(registry.call(callA)?.media == .video)
        #expect(
            error { try registry.signal(callA, fromDevice: b1, user: bob, kind: .media, payload: "hologram", now: 2) }
                == .invalidPayload)
        #expect(registry.call(callA)?.media == .video)
        let end = try registry.hangup(callA, device: a1, user: alice, now: 3)
        #expect(records(end).first?.media == .video)
    }
}

@Suite("Connections")
struct ConnectionTests {
    @Test("A party device reconnecting within the grace period keeps the call")
    func reconnectWithinGrace() throws {
        var registry = try activeRegistry()
        let lost = registry.deviceDisconnected(b1, user: bob, now: 10 * second)
        #expect(lost == [.peerConnectionLost(callID: callA, to: a1, graceDeadline: 20 * second)])
        #expect(registry.nextDeadline == 20 * second)
        #expect(registry.tick(now: 20 * second - 1).isEmpty)
        let back = registry.deviceReconnected(b1, user: bob, now: 20 * second - 1)
        let call = try #require(registry.call(callA))
        #expect(call.graceDeadlines.isEmpty)
        #expect(back == [.resumed(call: call, to: b1), .peerReconnected(callID: callA, to: a1)])
        #expect(registry.tick(now: 40 * second).isEmpty)
        #expect(registry.call(callA)?.state == .active(since: 0, callerDevice: a1, calleeDevice: b1))
        #expect(registry.nextDeadline == nil)
    }

    @Test("After the grace period the call ends as connection_lost and the other party is told")
    func graceExpires() throws {
        var registry = try activeRegistry(now: second)
        _ = registry.deviceDisconnected(a1, user: alice, now: 5 * second)
        // A second disconnect notice does not extend the grace period.
        #expect(registry.deviceDisconnected(a1, user: alice, now: 7 * second).isEmpty)
        #expect(registry.tick(now: 15 * second - 1).isEmpty)
        // Reconnecting at the deadline is too late (inclusive deadline).
        #expect(registry.deviceReconnected(a1, user: alice, now: 15 * second).isEmpty)
        let effects = registry.tick(now: 15 * second)
        let end = try #require(ending(effects))
        #expect(end.reason == .connectionLost)
        #expect(end.notify == [b1])
        #expect(end.duration == 14 * second)
        let record = try #require(records(effects).first)
        #expect(record.outcome == .connectionLost && record.durationMilliseconds == 14_000)
    }

    @Test("The grace period is configurable; both parties lost means nobody is notified")
    func bothLost() throws {
        var registry = try activeRegistry(configuration: CallConfiguration(reconnectGrace: .seconds(3)))
        #expect(registry.deviceDisconnected(a1, user: alice, now: second).count == 1)
        // The peer is already gone: nobody to tell.
        #expect(registry.deviceDisconnected(b1, user: bob, now: 2 * second).isEmpty)
        #expect(registry.nextDeadline == 4 * second)
        let effects = registry.tick(now: 4 * second)
        #expect(ending(effects)?.reason == .connectionLost)
        #expect(ending(effects)?.notify == [])
        #expect(records(effects).count == 1)
    }

    @Test("Other devices of the parties disconnecting do not affect an active call")
    func otherDevices() throws {
        var registry = try activeRegistry()
        #expect(registry.deviceDisconnected(b2, user: bob, now: 1).isEmpty)
        #expect(registry.deviceDisconnected(a2, user: alice, now: 1).isEmpty)
        #expect(registry.deviceDisconnected(c1, user: carol, now: 1).isEmpty)
        #expect(registry.nextDeadline == nil)
    }

    @Test("The caller's device vanishing while ringing cancels the call; the ringing devices are told")
    func callerVanishes() throws {
        var registry = try ringingRegistry()
        let effects = registry.deviceDisconnected(a1, user: alice, now: 3 * second)
        #expect(ending(effects)?.reason == .cancelled)
        #expect(ending(effects)?.notify == [b1, b2])
        #expect(records(effects).map(\.outcome) == [.cancelled])
        // Another device of the caller going away changes nothing.
        var other = try ringingRegistry()
        #expect(other.deviceDisconnected(a2, user: alice, now: 1).isEmpty)
        #expect(other.liveCallCount == 1)
    }

    @Test("A ringing callee device disconnecting stops ringing there; the call rings on until its deadline")
    func ringingDeviceDisconnects() throws {
        var registry = try ringingRegistry()
        #expect(
            registry.deviceDisconnected(b1, user: bob, now: second) == [
                .ringing(callID: callA, to: a1, ringingDevices: 1)
            ])
        #expect(
            registry.deviceDisconnected(b2, user: bob, now: second) == [
                .ringing(callID: callA, to: a1, ringingDevices: 0)
            ])
        #expect(registry.call(callA)?.ringingDevices == [])
        #expect(registry.tick(now: 60 * second).isEmpty)
        #expect(
            error { try registry.accept(callA, device: b1, user: bob, answer: nil, now: 60 * second) } == .forbidden)
        // The device comes back and rings again; it may now answer.
        let back = registry.deviceReconnected(b1, user: bob, now: 61 * second)
        let call = try #require(registry.call(callA))
        #expect(back == [.ring(devices: [b1], call: call), .ringing(callID: callA, to: a1, ringingDevices: 1)])
        #expect(call.offer == "v=0 offer")
        _ = try registry.accept(callA, device: b1, user: bob, answer: nil, now: 62 * second)
        #expect(registry.call(callA)?.acceptedDevice == b1)
    }

    @Test("A callee device coming online while ringing rings too; twice is once")
    func deviceComesOnline() throws {
        var registry = try ringingRegistry()
        let effects = registry.calleeDeviceCameOnline(b3, user: bob, now: second)
        let call = try #require(registry.call(callA))
        #expect(effects == [.ring(devices: [b3], call: call), .ringing(callID: callA, to: a1, ringingDevices: 3)])
        #expect(registry.calleeDeviceCameOnline(b3, user: bob, now: second).isEmpty)
        // The caller's own devices coming online do not ring.
        #expect(registry.calleeDeviceCameOnline(a2, user: alice, now: second).isEmpty)
        let accepted = try registry.accept(callA, device: b3, user: bob, answer: nil, now: 2 * second)
        #expect(accepted.first == .answeredElsewhere(callID: callA, devices: [b1, b2]))
        #expect(registry.calleeDeviceCameOnline(DeviceID(99), user: bob, now: 3 * second).isEmpty)
    }
}

@Suite("Shutdown")
struct ShutdownTests {
    @Test("Shutdown ends every call in progress as server_shutdown with one record each")
    func shutdown() throws {
        var registry = try activeRegistry()
        let carolCall = try registry.invite(
            callID: callB, caller: carol, callerDevice: c1, callee: DeviceOwner.dave, media: .video,
            calleeOnlineDevices: [DeviceID(41)], offer: nil, now: second
        )
        #expect(carolCall.disposition == .ringing)
        let missed = try registry.invite(
            callID: CallID("call-c"), caller: DeviceOwner.erin, callerDevice: DeviceID(51), callee: carol,
            media: .voice, calleeOnlineDevices: [], offer: nil, now: second
        )
        #expect(missed.disposition == .unavailable)
        _ = registry.deviceDisconnected(b1, user: bob, now: 2 * second)
        let effects = registry.shutdown(now: 5 * second)
        let recorded = records(effects)
        #expect(recorded.map(\.callID) == [callA, callB])
        #expect(recorded.allSatisfy { $0.outcome == .serverShutdown })
        #expect(recorded[0].durationMilliseconds == 5_000)
        #expect(recorded[1].durationMilliseconds == 0)
        let notified: [Set<DeviceID>] = effects.compactMap {
            if case .ended(_, .serverShutdown, let notify, _) = $0 { notify } else { nil }
        }
        #expect(notified == [[a1], [c1, DeviceID(41)]])
        #expect(registry.liveCallCount == 0)
        #expect(registry.shutdown(now: 6 * second).isEmpty)
        #expect(registry.tick(now: 600 * second).isEmpty)
    }
}

/// More users for tests that need them.
enum DeviceOwner {
    static let dave = UserID(4)
    static let erin = UserID(5)
}

@Suite("Client-chosen call ids")
struct CallAliasTests {
    /// A client-chosen id names the call for its caller only: another caller may choose the same name (no
    /// `duplicateCallID`, which would reveal it), the callee cannot use it, and the caller's own repeat is a duplicate.
    @Test func aliasesAreScopedPerCaller() throws {
        var registry = CallRegistry()
        let name = CallID("my-call")
        let fromAlice = try registry.invite(
            alias: name, caller: alice, callerDevice: a1, callee: bob, media: .voice, calleeOnlineDevices: [b1],
            offer: nil, now: 0)
        #expect(fromAlice.call.id != name)
        let fromCarol = try registry.invite(
            alias: name, caller: carol, callerDevice: c1, callee: bob, media: .voice, calleeOnlineDevices: [b1],
            offer: nil, now: 0)
        #expect(fromCarol.call.id != fromAlice.call.id)
        // A stranger may even choose alice's real id as its own name.
        let dave = UserID(4)
        let fromDave = try registry.invite(
            alias: fromAlice.call.id, caller: dave, callerDevice: DeviceID(41), callee: carol, media: .voice,
            calleeOnlineDevices: [], offer: nil, now: 0)
        #expect(fromDave.call.id != fromAlice.call.id)
        #expect(registry.call(fromAlice.call.id, for: dave)?.id == fromDave.call.id)
        #expect(registry.call(name, for: alice)?.id == fromAlice.call.id)
        #expect(registry.call(name, for: carol)?.id == fromCarol.call.id)
        #expect(registry.call(name, for: bob) == nil)
        #expect(error { try registry.accept(name, device: b1, user: bob, answer: nil, now: 1) } == .notFound)
        // Alice cancels by her name: her call ends, carol's still rings.
        let effects = try registry.cancel(name, device: a1, user: alice, now: 1)
        #expect(ending(effects)?.reason == .cancelled)
        #expect(records(effects).first?.callID == fromAlice.call.id)
        #expect(registry.call(fromCarol.call.id)?.isEnded == false)
        // Her name stays taken (by her own ended call) until it is forgotten.
        #expect(
            error {
                try registry.invite(
                    alias: name, caller: alice, callerDevice: a1, callee: bob, media: .voice, calleeOnlineDevices: [b1],
                    offer: nil, now: 2)
            } == .duplicateCallID)
        _ = registry.tick(now: registry.configuration.endedRetention.clampedNanoseconds + 10)
        #expect(registry.call(name, for: alice) == nil)
    }

    @Test func callIdCharset() {
        #expect(CallID.isValid("3f1c-AZ_az.09~!"))
        #expect(CallID.isValid(String(repeating: "x", count: 64)))
        for bad in ["", String(repeating: "x", count: 65), "a\u{0}b", "tab\t", "sp ace", "é", "\u{7F}"] {
            #expect(!CallID.isValid(bad), "\(bad.debugDescription)")
        }
    }
}
