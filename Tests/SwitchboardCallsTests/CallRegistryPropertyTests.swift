//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardCalls

/// SplitMix64: a small seeded generator, so failures replay.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Random operation sequences")
struct CallRegistryPropertyTests {
    /// Users 1...4, each with devices user*10+1 ... user*10+3.
    static let users = (1...4).map { UserID(Int64($0)) }
    static func devices(of user: UserID) -> [DeviceID] { (1...3).map { DeviceID(user.rawValue * 10 + Int64($0)) } }
    static func owner(of device: DeviceID) -> UserID { UserID(device.rawValue / 10) }

    /// Everything the registry exposes about the calls, to check that refused requests change nothing.
    struct Snapshot: Equatable {
        var calls: [[Call]]
        var nextDeadline: UInt64?
        var liveCallCount: Int
    }

    static func snapshot(_ registry: CallRegistry) -> Snapshot {
        Snapshot(
            calls: Self.users.map { registry.calls(involving: $0) }, nextDeadline: registry.nextDeadline,
            liveCallCount: registry.liveCallCount
        )
    }

    @Test(
        "Thousands of random steps: one record per call, no call past a deadline after a tick, relays stay in the call",
        arguments: [1, 2, 3, 42, 2026] as [UInt64]
    )
    func randomSequences(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var registry = CallRegistry(
            configuration: CallConfiguration(
                ringTimeout: .seconds(20), reconnectGrace: .seconds(5), signalsPerSecond: 5, signalBurst: 4,
                maxBufferedCandidates: 3, endedRetention: .seconds(30)
            )
        )
        var now: UInt64 = 1_000
        var created: [CallID] = []
        var recorded: [CallID: Int] = [:]
        var online: Set<DeviceID> = Set(Self.users.flatMap(Self.devices(of:)))
        var knownIDs: [CallID] = [CallID("never-created")]
        var refusals = 0

        func check(_ effects: [CallEffect]) {
            for effect in effects {
                switch effect {
                case .record(let record):
                    recorded[record.callID, default: 0] += 1
                    #expect(recorded[record.callID] == 1, "two records for \(record.callID)")
                case .relay(let id, let to, let from, _):
                    let call = registry.call(id)
                    #expect(call != nil)
                    if let call {
                        let parties = Set([call.callerDevice] + (call.acceptedDevice.map { [$0] } ?? []))
                        #expect(parties.contains(to) && parties.contains(from) && to != from)
                    }
                case .ring(let devices, let call):
                    #expect(devices.allSatisfy { Self.owner(of: $0) == call.callee })
                case .ended(let call, _, let notify, _):
                    #expect(
                        notify.allSatisfy { Self.owner(of: $0) == call.caller || Self.owner(of: $0) == call.callee })
                case .answeredElsewhere(let id, let devices):
                    #expect(devices.allSatisfy { Self.owner(of: $0) == registry.call(id)?.callee })
                case .accepted, .ringing, .peerConnectionLost, .peerReconnected, .resumed:
                    break
                }
            }
        }

        for _ in 0..<4_000 {
            if Int.random(in: 0..<4, using: &rng) == 0 {
                now += UInt64.random(in: 0...3_000, using: &rng) * 1_000_000
            }
            let user = Self.users.randomElement(using: &rng)!
            let device = Self.devices(of: user).randomElement(using: &rng)!
            let callID = knownIDs.randomElement(using: &rng)!
            let before = Self.snapshot(registry)
            do {
                switch Int.random(in: 0..<12, using: &rng) {
                case 0, 1:
                    let callee = Self.users.randomElement(using: &rng)!
                    let calleeDevices = Set(
                        Self.devices(of: callee).filter { online.contains($0) && Bool.random(using: &rng) })
                    let outcome = try registry.invite(
                        caller: user, callerDevice: device, callee: callee, media: .voice,
                        calleeOnlineDevices: calleeDevices, offer: "o", now: now
                    )
                    if outcome.disposition != .joinedExisting {
                        created.append(outcome.call.id)
                        knownIDs.append(outcome.call.id)
                    }
                    check(outcome.effects)
                case 2: check(try registry.accept(callID, device: device, user: user, answer: "a", now: now))
                case 3: check(try registry.decline(callID, device: device, user: user, now: now))
                case 4: check(try registry.cancel(callID, device: device, user: user, now: now))
                case 5: check(try registry.hangup(callID, device: device, user: user, now: now))
                case 6, 7:
                    let kind = CallSignalKind.allCases.randomElement(using: &rng)!
                    let payload = kind == .media ? "video" : "x"
                    check(
                        try registry.signal(
                            callID, fromDevice: device, user: user, kind: kind, payload: payload, now: now))
                case 8:
                    online.remove(device)
                    check(registry.deviceDisconnected(device, user: user, now: now))
                case 9:
                    online.insert(device)
                    check(registry.deviceReconnected(device, user: user, now: now))
                default:
                    check(registry.tick(now: now))
                    for other in Self.users {
                        for call in registry.calls(involving: other) {
                            switch call.state {
                            case .ringing: #expect(call.ringDeadline > now)
                            case .active: #expect(call.graceDeadlines.values.allSatisfy { $0 > now })
                            case .ended: Issue.record("calls(involving:) returned an ended call")
                            }
                        }
                    }
                    if let deadline = registry.nextDeadline { #expect(deadline > now) }
                }
            } catch {
                refusals += 1
                #expect(Self.snapshot(registry) == before, "a refused request changed the registry")
            }
            // The O(1) deadline and count agree with a scan of every call.
            var expectedDeadline: UInt64?
            var expectedLive = 0
            for id in knownIDs {
                guard let call = registry.call(id) else { continue }
                let deadline: UInt64?
                switch call.state {
                case .ringing: deadline = call.ringDeadline
                case .active: deadline = call.graceDeadlines.values.min()
                case .ended: deadline = call.purgeAt
                }
                if !call.isEnded { expectedLive += 1 }
                if let deadline { expectedDeadline = min(expectedDeadline ?? deadline, deadline) }
            }
            #expect(registry.nextDeadline == expectedDeadline)
            #expect(registry.liveCallCount == expectedLive)
            for other in Self.users {
                let active = registry.calls(involving: other).filter {
                    if case .active = $0.state { true } else { false }
                }
                let detail = active.map { "\($0) grace \($0.graceDeadlines)" }
                #expect(active.count <= 1, "\(other) is in \(active.count) active calls at \(now): \(detail)")
            }
        }
        check(registry.shutdown(now: now))
        #expect(registry.liveCallCount == 0)
        #expect(Set(recorded.keys) == Set(created))
        #expect(recorded.values.allSatisfy { $0 == 1 })
        #expect(created.count > 50)
        #expect(refusals > 100)
    }
}

@Suite("Deadline heap")
struct DeadlineHeapTests {
    @Test("Pops entries in (deadline, call id) order")
    func popsInOrder() {
        var rng = SeededGenerator(seed: 7)
        var heap = DeadlineHeap()
        var entries: [DeadlineHeap.Entry] = []
        for index in 0..<500 {
            let entry = DeadlineHeap.Entry(
                deadline: UInt64.random(in: 0..<50, using: &rng), callID: CallID("c\(index % 37)")
            )
            entries.append(entry)
            heap.push(entry)
        }
        var popped: [DeadlineHeap.Entry] = []
        while let entry = heap.pop() { popped.append(entry) }
        #expect(popped == entries.sorted(by: <))
        #expect(heap.count == 0 && heap.top == nil)
    }
}
