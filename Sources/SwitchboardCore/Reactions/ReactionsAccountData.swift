//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import SwitchboardStore

/// Reactions' part of account deletion (the reactions the user gave) and of the data export (`reactions.json`).
public enum ReactionsAccountData {
    /// Reactions the user gave.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("reactions", order: 20) { db, userId, limit in
            try db.execute(
                cached: """
                    DELETE FROM message_reactions WHERE (message_id, user_id) IN (
                        SELECT message_id, user_id FROM message_reactions WHERE user_id = $1 LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
        }
    ]

    private struct ExportedReaction: Encodable {
        var messageId: Int64
        var conversationId: Int64
        var emoji: String
        var createdAt: String
    }

    /// `reactions.json`: the reactions the user gave, oldest first.
    public static let exportSection = AccountExportSection(files: "reactions.json", order: 50) { c in
        let userId = c.userId
        let reactions = try await c.pool.withConnection { db in
            try db.execute(
                cached: """
                    SELECT r.message_id, m.conversation_id, r.emoji, \(WireTimestamp.sql("r.created_at"))
                    FROM message_reactions r JOIN messages m ON m.id = r.message_id WHERE r.user_id = $1
                    ORDER BY r.created_at
                    """, [.int(userId)]
            ).map { r in
                ExportedReaction(
                    messageId: try r.decode(column: 0), conversationId: try r.decode(column: 1),
                    emoji: try r.decode(column: 2), createdAt: try r.decode(column: 3))
            }
        }
        try c.add("reactions.json", json: reactions)
    }
}
