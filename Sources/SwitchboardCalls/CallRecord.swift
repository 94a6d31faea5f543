//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The row the server writes when a call ends (exactly one per call), plus the system message.
/// Times are monotonic nanoseconds; the server maps them to wall-clock time with one reading of
/// both clocks when it handles the effect (`wall(t) = wallNow - (endedAt - t)`).
public struct CallRecord: Sendable, Equatable {
    /// The call.
    public let callID: CallID
    /// Who invited.
    public let caller: UserID
    /// The device the caller used.
    public let callerDevice: DeviceID
    /// Who was invited.
    public let callee: UserID
    /// The callee device that accepted, if any.
    public let calleeDevice: DeviceID?
    /// Media kind at the end of the call.
    public let media: CallMedia
    /// The recorded outcome.
    public let outcome: CallOutcome
    /// The precise end reason (`timeout` and `unavailable` both record as `missed`).
    public let reason: CallEndReason
    /// When the invite was processed.
    public let startedAt: UInt64
    /// When the call was accepted, if it was.
    public let answeredAt: UInt64?
    /// When the call ended.
    public let endedAt: UInt64
    /// From accept to end in milliseconds (0 if never answered).
    public let durationMilliseconds: Int64
}
