//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `register` and `login`: `{user_id, session_id, session_token}`.
public struct SessionCredentials: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The account's user id.
    public var userId: Int64
    /// The new session's id.
    public var sessionId: Int64
    /// The bearer token for `authenticate` (43 base64url characters); a secret.
    public var sessionToken: String

    public init(userId: Int64, sessionId: Int64, sessionToken: String) {
        self.userId = userId
        self.sessionId = sessionId
        self.sessionToken = sessionToken
    }

    /// Redacts the token.
    public var description: String {
        "SessionCredentials(userId: \(userId), sessionId: \(sessionId), sessionToken: <redacted>)"
    }
}
