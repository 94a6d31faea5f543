//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Where a call is in its life.
public enum CallState: Sendable, Equatable {
    /// Ringing since `since` (monotonic ns) on `ringingDevices` of the callee (possibly none: the call
    /// keeps ringing until its deadline so that a device coming online can still answer).
    case ringing(since: UInt64, ringingDevices: Set<DeviceID>)
    /// Answered at `since` by `calleeDevice`; signals flow only between the two devices.
    case active(since: UInt64, callerDevice: DeviceID, calleeDevice: DeviceID)
    /// Finished; kept for `CallConfiguration.endedRetention`.
    case ended(reason: CallEndReason)
}
