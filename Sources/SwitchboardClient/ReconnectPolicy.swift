//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// When and how often a dropped connection is re-established: exponential backoff with jitter.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Whether a connection that dropped is re-established automatically (only while there is a session or
    /// queued work; see `SwitchboardClient`).
    public var enabled: Bool = true
    /// The delay before the first retry, in seconds.
    public var initialDelay: Double = 0.25
    /// The delay never grows beyond this, in seconds.
    public var maximumDelay: Double = 30
    /// Each failed attempt multiplies the delay by this.
    public var multiplier: Double = 2
    /// The share of each delay that is random (0: none; 0.5: between 50% and 100% of the delay), so that
    /// many clients dropped at once do not all come back at the same moment.
    public var jitter: Double = 0.5
    /// Attempts in a row before the client gives up (`ConnectionState.closed(.reconnectFailed)`); nil: never.
    public var maximumAttempts: Int? = nil

    public init() {}

    /// No automatic reconnect.
    public static var disabled: ReconnectPolicy {
        var p = ReconnectPolicy()
        p.enabled = false
        return p
    }
}
