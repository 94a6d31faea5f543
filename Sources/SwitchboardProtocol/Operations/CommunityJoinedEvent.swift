//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `community.joined {community}`: to the joining user's devices.
public struct CommunityJoinedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "community.joined"
    /// The community joined, as its new member sees it.
    public var community: Community
    /// The fields of the event.
    public init(community: Community) { self.community = community }
}
