//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
public import SwitchboardStore

/// The SQL of per-member conversation state that the server's handlers use (the writer's SQL is `MessageStore`).
public enum ConversationRepository {
    /// Hides a message for one user (idempotent).
    public static func hide(_ db: PostgresConnection, messageId: Int64, for user: Int64) throws {
        try db.execute(
            cached: "INSERT INTO hidden_messages (user_id, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [.int(user), .int(messageId)])
    }

    /// Moves `user`'s read marker forward to `seq` (never back, never past the conversation's last seq or the
    /// member's leave); the marker after it, or nil when `user` never was a member.
    public static func markRead(_ db: PostgresConnection, conversationId: Int64, user: Int64, seq: Int64) throws
        -> Int64?
    {
        try db.execute(
            cached: """
                UPDATE members mb
                SET read_seq = GREATEST(mb.read_seq, LEAST($3, c.last_seq, COALESCE(mb.left_seq, c.last_seq)))
                FROM conversations c WHERE c.id = mb.conversation_id AND mb.conversation_id = $1 AND mb.user_id = $2
                RETURNING mb.read_seq
                """, [.int(conversationId), .int(user), .int(seq)]
        ).decodeFirst(Int64.self)
    }

    /// The current members' ids.
    public static func activeMembers(_ db: PostgresConnection, conversationId: Int64) throws -> [Int64] {
        try db.execute(
            cached: "SELECT user_id FROM members WHERE conversation_id = $1 AND left_seq IS NULL",
            [.int(conversationId)]
        )
        .decode(Int64.self, column: 0)
    }
}
