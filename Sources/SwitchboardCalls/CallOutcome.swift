//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The outcome of a finished call as recorded (calls table and system message); `rawValue` is the stored spelling.
public enum CallOutcome: String, Sendable, Hashable, CaseIterable {
    /// No online device, or no answer before the deadline.
    case missed
    /// The callee declined.
    case declined
    /// The caller cancelled (or vanished) before an answer.
    case cancelled
    /// The callee was in another call.
    case busy
    /// Answered and hung up normally.
    case completed
    /// Answered, then a party's connection was lost past the grace period.
    case connectionLost = "connection_lost"
    /// Ended by a server shutdown.
    case serverShutdown = "server_shutdown"
    /// Ended because the cluster's call coordinator died (`docs/cluster.md`).
    case serverFailure = "server_failure"
}
