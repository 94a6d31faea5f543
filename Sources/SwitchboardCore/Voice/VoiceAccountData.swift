//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import SwitchboardStore

/// Voice's part of account deletion (the user's clips) and of the data export (`voice.json`, `voice/<id>.ogg`).
public enum VoiceAccountData {
    /// The user's voice clips; any message still referring to one loses the reference first.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("voice_clips", order: 30) { db, userId, limit in
            let unlinked = try db.execute(
                cached: """
                    UPDATE messages SET voice_id = NULL WHERE id IN (
                        SELECT m.id FROM messages m JOIN voice_clips v ON v.id = m.voice_id WHERE v.uploader_id = $1
                        LIMIT $2)
                    """, [.int(userId), .int(limit)]
            ).affectedRows
            if unlinked > 0 { return unlinked }
            return try db.execute(
                cached:
                    "DELETE FROM voice_clips WHERE id IN (SELECT id FROM voice_clips WHERE uploader_id = $1 LIMIT $2)",
                [.int(userId), .int(limit)]
            ).affectedRows
        }
    ]

    private struct ExportedClip: Encodable {
        var voiceId: Int64
        var durationMs: Int64
        var size: Int64
        var createdAt: String
        var file: String
    }

    /// `voice.json` (the clips the user sent) and each clip as `voice/<id>.ogg`.
    public static let exportSection = AccountExportSection(files: "voice.json, voice/<id>.ogg", order: 60) { c in
        let userId = c.userId
        let clips = try await c.pool.withConnection { db in
            try db.execute(
                cached: """
                    SELECT id, duration_ms, size, \(WireTimestamp.sql("created_at")) FROM voice_clips
                    WHERE uploader_id = $1 ORDER BY id
                    """, [.int(userId)]
            ).map { r in
                let id = try r.decode(Int64.self, column: 0)
                return ExportedClip(
                    voiceId: id, durationMs: try r.decode(column: 1), size: try r.decode(column: 2),
                    createdAt: try r.decode(column: 3), file: "voice/\(id).ogg")
            }
        }
        try c.add("voice.json", json: clips)
        for clip in clips {
            let audio = try await c.pool.withConnection { db in
                try db.execute(
                    cached: "SELECT audio FROM voice_clips WHERE id = $1 AND uploader_id = $2",
                    [.int(clip.voiceId), .int(userId)]
                ).first.map { try $0.decode(PostgresBytes.self, column: 0).bytes }
            }
            if let audio { try c.add(clip.file, audio) }
        }
    }
}
