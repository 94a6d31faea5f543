//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What the server must do after an input. Each case maps to exactly one event (named in the
/// case's doc) to the listed devices, or to one database write.
public enum CallEffect: Sendable, Equatable {
    /// `call.ring`: show an incoming call (caller, media, offer) on each of `devices`.
    case ring(devices: Set<DeviceID>, call: Call)
    /// `call.ringing`: tell the caller's device how many callee devices ring now (sent on invite and
    /// whenever that number changes while ringing).
    case ringing(callID: CallID, to: DeviceID, ringingDevices: Int)
    /// `call.answered_elsewhere`: stop ringing on `devices`; another device of the same user answered.
    case answeredElsewhere(callID: CallID, devices: Set<DeviceID>)
    /// `call.accepted`: tell the caller's device `to` that `by` answered, with its SDP answer if it sent one.
    case accepted(callID: CallID, to: DeviceID, by: DeviceID, answer: String?)
    /// `call.signal`: deliver `signal` from `from` to `to` (the only two devices of the call).
    case relay(callID: CallID, to: DeviceID, from: DeviceID, signal: CallSignal)
    /// `call.peer_connection_lost`: the other party's device dropped; the call ends at `graceDeadline`
    /// unless it comes back.
    case peerConnectionLost(callID: CallID, to: DeviceID, graceDeadline: UInt64)
    /// `call.peer_reconnected`: the other party's device is back; renegotiate (ICE restart) if needed.
    case peerReconnected(callID: CallID, to: DeviceID)
    /// `call.resumed`: a party's device came back within the grace period; here is the call.
    case resumed(call: Call, to: DeviceID)
    /// `call.ended {reason}` to every device in `notify` (the caller's device and the ringing or
    /// accepting callee devices, the acting device included, disconnected devices excluded).
    /// `durationNanoseconds` runs from accept to end (0 if never answered).
    case ended(call: Call, reason: CallEndReason, notify: Set<DeviceID>, durationNanoseconds: UInt64)
    /// Write the calls-table row and the system message; exactly one per call.
    case record(CallRecord)
}
