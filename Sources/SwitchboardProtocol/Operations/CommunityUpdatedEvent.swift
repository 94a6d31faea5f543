//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `community.updated {community}` (without per-user fields): to the members.
public struct CommunityUpdatedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "community.updated"
    /// The community as it is now.
    public var community: Community
    /// The fields of the event.
    public init(community: Community) { self.community = community }
}
