//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One signed-in device of a user: its session id, which stays the same when the device reconnects
/// (that is what lets a call survive a reconnection within the grace period).
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The session's row id.
    public let rawValue: Int64

    /// Wraps a session's row id.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "device:\(self.rawValue)" }
}
