//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One of the user's sessions (a logged-in device), as listed by `sessions.list`.
public struct DeviceSession: Codable, Sendable, Equatable {
    /// The session's id (what `sessions.revoke` takes).
    public var sessionId: Int64
    /// The device name given at register or login.
    public var device: String
    /// When the session began (RFC 3339, UTC).
    public var createdAt: String
    /// When the session was last used to authenticate (RFC 3339, UTC).
    public var lastSeenAt: String
    /// Whether this is the session of the connection that asked.
    public var current: Bool

    public init(sessionId: Int64, device: String, createdAt: String, lastSeenAt: String, current: Bool) {
        self.sessionId = sessionId
        self.device = device
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.current = current
    }
}
