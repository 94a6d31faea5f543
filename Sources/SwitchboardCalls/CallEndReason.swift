//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a call ended; `rawValue` is the wire spelling of `call.ended {reason}`.
public enum CallEndReason: String, Sendable, Hashable, CaseIterable {
    /// The callee had no online device when invited.
    case unavailable
    /// Nobody answered before the ring deadline.
    case timeout
    /// A callee device declined.
    case declined
    /// The caller cancelled before an answer, or the caller's device disconnected while ringing.
    case cancelled
    /// The callee was already in an active call.
    case busy
    /// A party hung up an active call.
    case hangup
    /// A party's device stayed disconnected past the grace period.
    case connectionLost = "connection_lost"
    /// The server shut down.
    case serverShutdown = "server_shutdown"
    /// The node that coordinated the cluster's calls died; the node that took over ended the call.
    case serverFailure = "server_failure"

    /// The outcome written to the calls table for this reason.
    public var outcome: CallOutcome {
        switch self {
        case .unavailable, .timeout: .missed
        case .declined: .declined
        case .cancelled: .cancelled
        case .busy: .busy
        case .hangup: .completed
        case .connectionLost: .connectionLost
        case .serverShutdown: .serverShutdown
        case .serverFailure: .serverFailure
        }
    }
}
