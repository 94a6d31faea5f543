//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A pending follow request: `{user, created_at, request_id}`.
public struct FollowRequestItem: Codable, Sendable, Equatable {
    public var user: SocialUser
    public var createdAt: String
    public var requestId: Int64
    public init(user: SocialUser, createdAt: String, requestId: Int64) {
        self.user = user
        self.createdAt = createdAt
        self.requestId = requestId
    }
}
