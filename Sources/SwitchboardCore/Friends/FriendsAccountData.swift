//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Friends' part of account deletion (requests and friendships) and of the data export (`friends.json`).
public enum FriendsAccountData {
    /// Friend requests sent or received, then friendships.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("friend_requests", order: 50) { db, userId, limit in
            try db.execute(
                cached: """
                    DELETE FROM friend_requests WHERE id IN (
                        SELECT id FROM friend_requests WHERE from_user = $1 OR to_user = $1 LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
        },
        .rows("friendships", order: 60) { db, userId, limit in
            try db.execute(
                cached: """
                    DELETE FROM friendships WHERE (user_low, user_high) IN (
                        SELECT user_low, user_high FROM friendships WHERE user_low = $1 OR user_high = $1 LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
        },
    ]

    /// `friends.json`: the user's friends (id and display name), in the friend list's order.
    public static let exportSection = AccountExportSection(files: "friends.json", order: 20) { c in
        let userId = c.userId
        let friends = try await c.pool.withConnection { db in
            try FriendRepository.friends(db, of: userId).map {
                ExportedUser(userId: $0.userId, displayName: $0.displayName)
            }
        }
        try c.add("friends.json", json: friends)
    }
}
