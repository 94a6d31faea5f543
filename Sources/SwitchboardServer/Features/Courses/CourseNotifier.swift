//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol
import SwitchboardStore

// A stand-in for COMM's notifier (`CommunityNotifications.publish`), replaced when h/communities is merged.

struct StandInNotification: Codable, Sendable {
    var communityId: Int64
    var seq: Int64
    var kind: String
    var postId: Int64?
    var title: String
}

struct StandInNotificationEvent: Codable, Sendable {
    var notification: StandInNotification
}

extension CoursesFeature {
    static func publish(_ db: PostgresConnection, communityId: Int64, kind: String, postId: Int64, actorId: Int64, title: String) throws
        -> StandInNotification
    {
        let seq = try db.execute(
            cached: "UPDATE communities SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq", [.int(communityId)]
        ).decodeFirst(Int64.self) ?? 0
        try db.execute(
            cached: "INSERT INTO community_notifications (community_id, seq, kind, post_id, actor_id, title) VALUES ($1, $2, $3, $4, $5, $6)",
            [.int(communityId), .int(seq), .text(kind), .int(postId), .int(actorId), .text(title)])
        try db.execute(
            cached: "UPDATE community_members SET read_seq = $3 WHERE community_id = $1 AND user_id = $2 AND read_seq = $3 - 1",
            [.int(communityId), .int(actorId), .int(seq)])
        return StandInNotification(communityId: communityId, seq: seq, kind: kind, postId: postId, title: title)
    }

    static func pushNotification<Op>(_ s: RequestContext<Op>.Snapshot, _ notification: StandInNotification, to members: [Int64]) {
        s.services.deliveries.send(
            ProtocolCodec.encodeEvent("community.notification", StandInNotificationEvent(notification: notification)), toUsers: members)
    }
}
