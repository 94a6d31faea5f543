//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `community.role {community_id, user_id, role}`: to that user's devices when an administrator appoints or
/// removes a core member.
public struct CommunityRoleEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "community.role"
    public var communityId: Int64
    public var userId: Int64
    /// `core` or `member`.
    public var role: String
    public init(communityId: Int64, userId: Int64, role: String) {
        self.communityId = communityId
        self.userId = userId
        self.role = role
    }
}
