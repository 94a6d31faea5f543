//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `community.archived {community_id}`: to the members.
public struct CommunityArchivedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "community.archived"
    public var communityId: Int64
    public init(communityId: Int64) { self.communityId = communityId }
}
