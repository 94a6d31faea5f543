//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One community notification: a published, changed or cancelled event, an announcement or a lesson. `seq`
/// numbers the community's notifications from 1; a member's unread count is the community's newest seq minus
/// the member's `read_seq`.
public struct CommunityNotification: Codable, Sendable, Equatable {
    /// The kinds of notification.
    public static let kinds = ["event.published", "event.changed", "event.cancelled", "announcement", "lesson"]

    public var communityId: Int64
    public var seq: Int64
    /// One of `kinds`.
    public var kind: String
    public var eventId: Int64?
    public var postId: Int64?
    /// Who published it (null when the account was deleted).
    public var actor: UserSummary?
    public var title: String
    public var createdAt: String

    public init(
        communityId: Int64, seq: Int64, kind: String, eventId: Int64?, postId: Int64?, actor: UserSummary?,
        title: String, createdAt: String
    ) {
        self.communityId = communityId
        self.seq = seq
        self.kind = kind
        self.eventId = eventId
        self.postId = postId
        self.actor = actor
        self.title = title
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case communityId, seq, kind, eventId, postId, actor, title, createdAt
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(communityId, forKey: .communityId)
        try c.encode(seq, forKey: .seq)
        try c.encode(kind, forKey: .kind)
        try c.encode(eventId, forKey: .eventId)  // null when absent
        try c.encode(postId, forKey: .postId)
        try c.encode(actor, forKey: .actor)
        try c.encode(title, forKey: .title)
        try c.encode(createdAt, forKey: .createdAt)
    }
}
