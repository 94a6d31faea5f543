//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The community notifications (`docs/protocol.md`, "Communities"): the one notifier that events,
/// announcements and lessons publish through.
public enum CommunityNotifications {
    /// Publishes a notification inside the caller's transaction: bumps `communities.last_seq` (its row lock orders
    /// the community's publications), inserts the notification, and advances the actor's own `read_seq` when the
    /// actor is a member that had read everything before (its own publication is not unread to it). After the
    /// commit, the service that published it tells `CommunityRepository.memberIds` (read in the same transaction)
    /// `community.notification` (`CommunityService.notificationEvent` in the server). `noSuchCommunity` when there is
    /// no such community.
    public static func publish(
        _ db: PostgresConnection, communityId: Int64, kind: String, eventId: Int64? = nil, postId: Int64? = nil,
        actorId: Int64?,
        title: String
    ) throws -> CommunityNotification {
        guard CommunityNotification.kinds.contains(kind) else { throw CommunityError.unknownNotificationKind(kind) }
        guard
            let seq = try db.execute(
                cached: "UPDATE communities SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq",
                [.int(communityId)]
            ).decodeFirst(Int64.self)
        else { throw CommunityError.noSuchCommunity }
        guard
            let r = try db.execute(
                cached: """
                    INSERT INTO community_notifications (community_id, seq, kind, event_id, post_id, actor_id, title)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING \(WireTimestamp.sql("created_at"))
                    """,
                [
                    .int(communityId), .int(seq), .text(kind), eventId.map { .int($0) }, postId.map { .int($0) },
                    actorId.map { .int($0) }, .text(title),
                ]
            ).first
        else { throw CommunityError.notStored }
        var actor: UserSummary?
        if let actorId {
            try db.execute(
                cached: """
                    UPDATE community_members SET read_seq = $3
                    WHERE community_id = $1 AND user_id = $2 AND read_seq = $3 - 1
                    """,
                [.int(communityId), .int(actorId), .int(seq)])
            if let name = try db.execute(cached: "SELECT display_name FROM users WHERE id = $1", [.int(actorId)])
                .decodeFirst(String.self)
            {
                actor = UserSummary(userId: actorId, displayName: name)
            }
        }
        return CommunityNotification(
            communityId: communityId, seq: seq, kind: kind, eventId: eventId, postId: postId, actor: actor,
            title: title,
            createdAt: try r.decode(column: 0))
    }
}
