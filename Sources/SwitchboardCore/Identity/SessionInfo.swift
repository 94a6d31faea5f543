//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One of a user's sessions (devices), as `sessions.list` shows it.
public struct SessionInfo: Codable, Sendable, Equatable {
    /// The session.
    public var sessionId: Int64
    /// The device name given at register or login.
    public var device: String
    /// When the session was opened (wire timestamp).
    public var createdAt: String
    /// When the session last authenticated (wire timestamp).
    public var lastSeenAt: String
    /// Whether it is the session asking.
    public var current: Bool
}
