//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardCalls

/// One second in nanoseconds.
let second: UInt64 = 1_000_000_000
/// One millisecond in nanoseconds.
let millisecond: UInt64 = 1_000_000

let alice = UserID(1)
let bob = UserID(2)
let carol = UserID(3)
let a1 = DeviceID(11)
let a2 = DeviceID(12)
let b1 = DeviceID(21)
let b2 = DeviceID(22)
let b3 = DeviceID(23)
let c1 = DeviceID(31)

let callA = CallID("call-a")
let callB = CallID("call-b")

/// The records among the effects.
func records(_ effects: [CallEffect]) -> [CallRecord] {
    effects.compactMap { if case .record(let record) = $0 { record } else { nil } }
}

/// The single `ended` effect's reason and notified devices, or nil if there is none.
func ending(_ effects: [CallEffect]) -> (reason: CallEndReason, notify: Set<DeviceID>, duration: UInt64)? {
    let endings: [(CallEndReason, Set<DeviceID>, UInt64)] = effects.compactMap {
        if case .ended(_, let reason, let notify, let duration) = $0 { (reason, notify, duration) } else { nil }
    }
    guard endings.count == 1 else { return nil }
    return endings[0]
}

/// The relays among the effects, as (to, from, kind, payload).
func relays(_ effects: [CallEffect]) -> [(to: DeviceID, from: DeviceID, kind: CallSignalKind, payload: String)] {
    effects.compactMap {
        if case .relay(_, let to, let from, let signal) = $0 { (to, from, signal.kind, signal.payload) } else { nil }
    }
}

/// The error a throwing registry call raised, or nil if it succeeded.
/// (Untyped closure: typed-throws inference does not reach into `#expect`.)
func error<T>(_ body: () throws -> T) -> CallError? {
    do {
        _ = try body()
        return nil
    } catch let error as CallError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// A registry where alice (from a1) calls bob, whose devices b1 and b2 are online, at `now`; id `callA`.
func ringingRegistry(
    configuration: CallConfiguration = CallConfiguration(), now: UInt64 = 0, offer: String? = "v=0 offer"
) throws -> CallRegistry {
    var registry = CallRegistry(configuration: configuration)
    _ = try registry.invite(
        callID: callA, caller: alice, callerDevice: a1, callee: bob, media: .voice,
        calleeOnlineDevices: [b1, b2], offer: offer, now: now
    )
    return registry
}

/// A registry where alice's call to bob was accepted on b1 at `now`.
func activeRegistry(configuration: CallConfiguration = CallConfiguration(), now: UInt64 = 0) throws -> CallRegistry {
    var registry = try ringingRegistry(configuration: configuration, now: now)
    _ = try registry.accept(callA, device: b1, user: bob, answer: "v=0 answer", now: now)
    return registry
}
