//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import SwitchboardStore

/// Messaging's part of account deletion (memberships end, messages become tombstones, hidden marks go, pins lose
/// their author) and of the data export (`conversations.json`, `message_pins.json`).
public enum MessagingAccountData {
    /// Active memberships of groups end (the conversation's version is bumped so cached writers reload); the user's
    /// messages become tombstones (text, voice and reactions' target content gone, seq kept); messages the user hid.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("memberships", order: 0) { db, userId, limit in
            // Conversation rows first (the writers' lock order), with their version bumped.
            let rows = try db.execute(
                cached: """
                    UPDATE conversations c SET version = c.version + 1 FROM (
                        SELECT c2.id FROM conversations c2 JOIN members m ON m.conversation_id = c2.id
                        WHERE m.user_id = $1 AND m.left_seq IS NULL AND c2.kind = 'group' ORDER BY c2.id LIMIT $2
                    ) pick WHERE c.id = pick.id RETURNING c.id, c.last_seq
                    """, [.int(userId), .int(limit)])
            for r in rows {
                try db.execute(
                    cached: "UPDATE members SET left_seq = $3 WHERE conversation_id = $2 AND user_id = $1",
                    [
                        .int(userId), .int(try r.decode(Int64.self, column: 0)),
                        .int(try r.decode(Int64.self, column: 1)),
                    ])
            }
            return rows.count
        },
        .rows("messages", order: 10) { db, userId, limit in
            try db.execute(
                cached: """
                    UPDATE messages SET body = NULL, voice_id = NULL, deleted_at = COALESCE(deleted_at, now()),
                      sender_deleted = true
                    WHERE id IN (
                      SELECT id FROM messages WHERE sender_id = $1 AND kind <> 'system' AND NOT sender_deleted LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
        },
        .rows("hidden_messages", order: 40) { db, userId, limit in
            try db.execute(
                cached: """
                    DELETE FROM hidden_messages WHERE user_id = $1 AND message_id IN (
                        SELECT message_id FROM hidden_messages WHERE user_id = $1 LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
        },
        // A pin stays: it is the conversation's, which its other members see and may undo. Who pinned it is the
        // deleted account's, and goes. (Pins of the account's own messages drop out with their tombstones.)
        .rows("message_pins", order: 45) { db, userId, limit in
            try db.execute(
                cached: """
                    UPDATE message_pins SET pinned_by = NULL WHERE message_id IN (
                        SELECT message_id FROM message_pins WHERE pinned_by = $1 LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
        },
    ]

    private struct ExportedPin: Encodable {
        var conversationId: Int64
        var messageId: Int64
        var seq: Int64
        var pinnedAt: String
    }

    /// `message_pins.json`: the pins the user made that are still stored (the conversation, the message and its
    /// seq, when), oldest first.
    public static let pinsExportSection = AccountExportSection(files: "message_pins.json", order: 45) { c in
        let userId = c.userId
        let pins = try await c.pool.withConnection { db in
            try db.execute(
                cached: """
                    SELECT p.conversation_id, p.message_id, m.seq, \(WireTimestamp.sql("p.pinned_at"))
                    FROM message_pins p JOIN messages m ON m.id = p.message_id
                    WHERE p.pinned_by = $1 ORDER BY p.pinned_at, p.message_id
                    """, [.int(userId)]
            ).map { r in
                ExportedPin(
                    conversationId: try r.decode(column: 0), messageId: try r.decode(column: 1),
                    seq: try r.decode(column: 2), pinnedAt: try r.decode(column: 3))
            }
        }
        try c.add("message_pins.json", json: pins)
    }

    private struct ExportedConversation: Encodable {
        var conversationId: Int64
        var kind: String
        var name: String?
        var members: [ExportedUser]
        var joinedSeq: Int64
        var leftSeq: Int64?
        var messages: [ChatMessage]
    }

    /// `conversations.json`: every conversation the user is or was in, with the messages the user can see (pages of
    /// 1,000 on leases of their own).
    public static let exportSection = AccountExportSection(files: "conversations.json", order: 40) { c in
        let userId = c.userId
        let memberships = try await c.pool.withConnection { db in
            try db.execute(
                cached: """
                    SELECT c.id, c.kind, c.name, mb.joined_seq, mb.left_seq FROM members mb
                    JOIN conversations c ON c.id = mb.conversation_id
                    WHERE mb.user_id = $1 ORDER BY c.id
                    """, [.int(userId)]
            ).map { r in
                ExportedConversation(
                    conversationId: try r.decode(column: 0), kind: try r.decode(column: 1),
                    name: try r.decode(column: 2),
                    members: [], joinedSeq: try r.decode(column: 3), leftSeq: try r.decode(column: 4), messages: [])
            }
        }
        var conversations: [ExportedConversation] = []
        for var conversation in memberships {
            let id = conversation.conversationId
            let range = (conversation.joinedSeq, conversation.leftSeq ?? Int64.max)
            conversation.members = try await c.pool.withConnection { db in
                try db.execute(
                    cached: """
                        SELECT u.id, u.display_name FROM members mb JOIN users u ON u.id = mb.user_id
                        WHERE mb.conversation_id = $1 ORDER BY u.id
                        """, [.int(id)]
                ).map { ExportedUser(userId: try $0.decode(column: 0), displayName: try $0.decode(column: 1)) }
            }
            var after = range.0
            while true {
                let from = after
                let page = try await c.pool.withConnection { db in
                    try db.execute(
                        cached: """
                            SELECT \(MessageStore.messageColumns) FROM messages m
                            WHERE m.conversation_id = $1 AND m.seq > $2 AND m.seq <= $3 ORDER BY m.seq LIMIT 1000
                            """, [.int(id), .int(from), .int(range.1)]
                    ).map { try MessageStore.message($0) }
                }
                try c.reserve(page.reduce(0) { $0 + ($1.text?.utf8.count ?? 0) + 200 })
                conversation.messages += page
                guard page.count == 1000, let last = page.last else { break }
                after = last.seq
            }
            conversations.append(conversation)
        }
        try c.add("conversations.json", json: conversations)
    }
}
