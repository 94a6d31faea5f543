//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A pending friend request: `{request_id, from, to, created_at}`.
public struct PendingFriendRequest: Codable, Sendable, Equatable {
    /// The request's id (what `friends.accept`, `friends.decline` and `friends.cancel` take).
    public var requestId: Int64
    /// Who asked.
    public var from: UserSummary
    /// Who was asked.
    public var to: UserSummary
    /// When the request was made (RFC 3339, UTC).
    public var createdAt: String

    public init(requestId: Int64, from: UserSummary, to: UserSummary, createdAt: String) {
        self.requestId = requestId
        self.from = from
        self.to = to
        self.createdAt = createdAt
    }
}
