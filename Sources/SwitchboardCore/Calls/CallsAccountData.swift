//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Calls' part of account deletion: the call records where the user was caller or callee (the chat keeps its
/// call-record messages, which are the other party's history too).
public enum CallsAccountData {
    /// Call records.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("calls", order: 70) { db, userId, limit in
            try db.execute(
                cached: """
                    DELETE FROM calls WHERE id IN (SELECT id FROM calls WHERE caller_id = $1 OR callee_id = $1 LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
        }
    ]
}
