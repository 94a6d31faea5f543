//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A member as `communities.members` lists it.
public struct CommunityMember: Codable, Sendable, Equatable {
    public var user: UserSummary
    /// `core` or `member`.
    public var role: String
    public var joinedAt: String
    public init(user: UserSummary, role: String, joinedAt: String) {
        self.user = user
        self.role = role
        self.joinedAt = joinedAt
    }
}
