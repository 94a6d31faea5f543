//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `sessions.list`: `{sessions: [...]}`, newest first.
public struct SessionsListResult: Codable, Sendable, Equatable {
    /// The user's active sessions.
    public var sessions: [DeviceSession]
    public init(sessions: [DeviceSession]) { self.sessions = sessions }
}
