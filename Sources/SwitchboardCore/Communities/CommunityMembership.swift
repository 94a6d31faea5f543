//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain

/// A user's standing in one community (`CommunityRepository.membership`).
public struct CommunityMembership: Sendable, Equatable {
    public var communityId: Int64
    public var archived: Bool
    /// `member` or `core`; nil when the user is not a member.
    public var role: String?
    /// Whether the user is an administrator (and not suspended).
    public var administrator: Bool
    /// The member's marker (0 for a non-member) and the community's newest notification seq.
    public var readSeq: Int64
    public var lastSeq: Int64

    public init(communityId: Int64, archived: Bool, role: String?, administrator: Bool, readSeq: Int64, lastSeq: Int64)
    {
        self.communityId = communityId
        self.archived = archived
        self.role = role
        self.administrator = administrator
        self.readSeq = readSeq
        self.lastSeq = lastSeq
    }

    public var isMember: Bool { role != nil }
    public var isCore: Bool { role == "core" }
    /// Whether the user sees the community at all: live ones everyone, archived ones their members and admins.
    public var visible: Bool { !archived || isMember || administrator }

    /// The rule for members-only content (members, notifications, posts, the course): `noSuchCommunity` when the
    /// community is not visible to the user, `membersOnly` when the user is neither member nor admin.
    public func requireReader() throws(CommunityError) {
        guard visible else { throw .noSuchCommunity }
        guard isMember || administrator else { throw .membersOnly }
    }
}
