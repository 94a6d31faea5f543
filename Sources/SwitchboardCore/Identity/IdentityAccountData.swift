//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Identity's part of account deletion (sessions, already revoked by the request) and of the data export
/// (`profile.json` with its social fields, `sessions.json`).
public enum IdentityAccountData {
    /// Sessions.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("sessions", order: 120) { db, userId, limit in
            try db.execute(
                cached: "DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE user_id = $1 LIMIT $2)",
                [.int(userId), .int(limit)]
            ).affectedRows
        }
    ]

    /// `profile.json`: the profile as the user sees it (with the social layer's handle, bio and counts).
    public static let profileSection = AccountExportSection(files: "profile.json", order: 10) { c in
        let userId = c.userId
        let profile = try await c.pool.withConnection { db in
            var profile = try UserRepository.profile(db, of: userId)
            if var p = profile {
                try SocialGraphRepository.decorate(db, &p, viewer: userId)
                profile = p
            }
            return profile
        }
        try c.add("profile.json", json: profile)
    }

    /// `sessions.json`: the user's sessions.
    public static let sessionsSection = AccountExportSection(files: "sessions.json", order: 30) { c in
        let userId = c.userId
        let sessions = try await c.pool.withConnection { db in
            try SessionRepository.list(db, of: userId, currentSessionId: 0)
        }
        try c.add("sessions.json", json: sessions)
    }
}
