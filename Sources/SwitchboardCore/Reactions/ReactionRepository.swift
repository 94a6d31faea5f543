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

/// The SQL of message reactions (table `message_reactions`, one row per user and message). Every function
/// takes the connection it runs on; none opens a transaction of its own.
public enum ReactionRepository {
    /// What `set` changed.
    public struct Change: Sendable, Equatable {
        public var conversationId: Int64
        /// Whether the row changed (false: the same emoji again, or removing what was not there).
        public var changed: Bool
        /// The message's counts after the change, `mine` for the user who set it.
        public var counts: [ReactionCount]
        /// Current members who see the message (the event's recipients).
        public var members: [Int64]
    }

    /// Sets (`emoji`) or removes (nil) `userId`'s reaction to `messageId`. A message the user cannot see
    /// (a stranger's, one before the user joined or after the user left, or no such id) is `noSuchMessage`, the
    /// same for each; a deleted message is `messageDeleted`.
    public static func set(_ db: PostgresConnection, messageId: Int64, userId: Int64, emoji: String?) throws -> Change {
        guard let info = try MessageStore.messageInfo(db, messageId: messageId),
            let range = try MessageStore.membership(db, conversationId: info.conversationId, userId: userId),
            range.sees(info.seq)
        else { throw ReactionError.noSuchMessage }
        guard !info.deleted else { throw ReactionError.messageDeleted }
        let changed: Bool
        if let emoji {
            changed = try !db.execute(
                cached: """
                    INSERT INTO message_reactions (message_id, user_id, emoji) VALUES ($1, $2, $3)
                    ON CONFLICT (message_id, user_id) DO UPDATE SET emoji = EXCLUDED.emoji, created_at = now()
                    WHERE message_reactions.emoji <> EXCLUDED.emoji
                    RETURNING 1
                    """, [.int(messageId), .int(userId), .text(emoji)]
            ).isEmpty
        } else {
            changed = try !db.execute(
                cached: "DELETE FROM message_reactions WHERE message_id = $1 AND user_id = $2 RETURNING 1",
                [.int(messageId), .int(userId)]
            ).isEmpty
        }
        let members = try db.execute(
            cached: "SELECT user_id FROM members WHERE conversation_id = $1 AND left_seq IS NULL AND joined_seq < $2",
            [.int(info.conversationId), .int(info.seq)]
        ).decode(Int64.self, column: 0)
        let counts = try self.counts(db, messageIds: [messageId], viewer: userId)[messageId] ?? []
        return Change(conversationId: info.conversationId, changed: changed, counts: counts, members: members)
    }

    /// A row of `counts`.
    struct Row: PostgresRowDecodable {
        var messageId: Int64
        var emoji: String
        var count: Int64
        var mine: Bool

        init(row: PostgresRow) throws(PostgresDecodingError) {
            messageId = try row.decode(column: 0)
            emoji = try row.decode(column: 1)
            count = try row.decode(column: 2)
            mine = try row.decode(column: 3)
        }
    }

    /// The counts of each message in `messageIds` that has reactions (one grouped query), most chosen first,
    /// `mine` for `viewer`.
    public static func counts(_ db: PostgresConnection, messageIds: [Int64], viewer: Int64) throws -> [Int64:
        [ReactionCount]]
    {
        guard !messageIds.isEmpty else { return [:] }
        var result: [Int64: [ReactionCount]] = [:]
        for r in try db.execute(
            cached: """
                SELECT message_id, emoji, count(*), bool_or(user_id = $2) FROM message_reactions
                WHERE message_id = ANY($1::bigint[]) GROUP BY message_id, emoji
                ORDER BY message_id, count(*) DESC, min(created_at), emoji
                """, [.text(MessageStore.bigintArray(messageIds)), .int(viewer)]
        ).decode(Row.self) {
            result[r.messageId, default: []].append(ReactionCount(emoji: r.emoji, count: r.count, mine: r.mine))
        }
        return result
    }

    /// `messages` with their `reactions` set (left nil for messages without any): one query for the page.
    public static func attach(_ db: PostgresConnection, to messages: [ChatMessage], viewer: Int64) throws
        -> [ChatMessage]
    {
        let ids = messages.filter { $0.deleted != true }.map(\.id)
        let counts = try self.counts(db, messageIds: ids, viewer: viewer)
        guard !counts.isEmpty else { return messages }
        return messages.map { m in
            var m = m
            m.reactions = counts[m.id]
            return m
        }
    }
}
