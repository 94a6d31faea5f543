//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `authenticate`: `{user_id, session_id, profile}`.
public struct AuthenticateResult: Codable, Sendable, Equatable {
    /// The authenticated user.
    public var userId: Int64
    /// The session the token belongs to.
    public var sessionId: Int64
    /// The user's own profile (with phone).
    public var profile: UserProfile

    public init(userId: Int64, sessionId: Int64, profile: UserProfile) {
        self.userId = userId
        self.sessionId = sessionId
        self.profile = profile
    }
}
