//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `community.left {community_id, dropped_event_ids}`: to the leaving user's devices.
public struct CommunityLeftEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "community.left"
    public var communityId: Int64
    public var droppedEventIds: [Int64]
    public init(communityId: Int64, droppedEventIds: [Int64]) {
        self.communityId = communityId
        self.droppedEventIds = droppedEventIds
    }
}
