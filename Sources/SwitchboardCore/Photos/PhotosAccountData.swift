//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Photos' part of account deletion: the user's photos and renditions (post and moment links cascade, the avatar
/// clears), then resumable uploads in progress and their chunks. Their export is in moments' section.
public enum PhotosAccountData {
    /// Photos, then uploads.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("photos", order: 210) { db, userId, limit in
            try db.execute(
                cached: "DELETE FROM photos WHERE id IN (SELECT id FROM photos WHERE owner_id = $1 LIMIT $2)",
                [.int(userId), .int(limit)]
            ).affectedRows
        },
        .rows("uploads", order: 220) { db, userId, limit in
            try db.execute(
                cached: "DELETE FROM uploads WHERE id IN (SELECT id FROM uploads WHERE owner_id = $1 LIMIT $2)",
                [.int(userId), .int(limit)]
            ).affectedRows
        },
    ]
}
