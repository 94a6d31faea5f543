//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `community.read {community_id, read_seq, unread, unread_total}`: to the user's devices after
/// `communities.read` (other devices clear their dot).
public struct CommunityReadEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "community.read"
    public var communityId: Int64
    public var readSeq: Int64
    public var unread: Int64
    public var unreadTotal: Int64
    public init(communityId: Int64, readSeq: Int64, unread: Int64, unreadTotal: Int64) {
        self.communityId = communityId
        self.readSeq = readSeq
        self.unread = unread
        self.unreadTotal = unreadTotal
    }
}
