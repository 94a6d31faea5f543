//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardStore

/// The SQL of voice clips. Runs on a leased connection's queue.
public enum VoiceStore {
    static func hex(_ bytes: [UInt8]) -> String {
        let digits: [Character] = Array("0123456789abcdef")
        var s = ""
        s.reserveCapacity(bytes.count * 2)
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 0xF)])
        }
        return s
    }

    static func clip(_ r: PostgresRow) throws(PostgresDecodingError) -> VoiceClip {
        VoiceClip(
            id: try r.decode(column: 0), uploaderId: try r.decode(column: 1), durationMs: try r.decode(column: 2),
            waveform: try r.decode(PostgresBytes.self, column: 3).bytes.map(Int.init), size: try r.decode(column: 4),
            sha256Hex: hex(try r.decode(PostgresBytes.self, column: 5).bytes))
    }

    static let columns = "id, uploader_id, duration_ms, waveform, size, sha256"

    /// Stores a clip, or returns the uploader's existing clip with the same hash.
    public static func store(
        _ db: PostgresConnection, uploader: Int64, audio: [UInt8], sha256: [UInt8], durationMs: Int, waveform: [UInt8]
    ) throws -> VoiceClip {
        let inserted = try db.execute(
            cached: """
                INSERT INTO voice_clips (uploader_id, sha256, audio, duration_ms, waveform, size)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (uploader_id, sha256) DO NOTHING RETURNING \(columns)
                """,
            [.int(uploader), .bytea(sha256), .bytea(audio), .int(durationMs), .bytea(waveform), .int(audio.count)])
        if let r = inserted.first { return try clip(r) }
        guard
            let r = try db.execute(
                cached: "SELECT \(columns) FROM voice_clips WHERE uploader_id = $1 AND sha256 = $2",
                [.int(uploader), .bytea(sha256)]
            ).first
        else { throw ServiceError.invariant("a voice clip neither inserted nor found by its hash") }
        return try clip(r)
    }

    /// A clip's metadata if `userId` uploaded it.
    public static func owned(_ db: PostgresConnection, id: Int64, by userId: Int64) throws -> VoiceClip? {
        try db.execute(
            cached: "SELECT \(columns) FROM voice_clips WHERE id = $1 AND uploader_id = $2", [.int(id), .int(userId)]
        )
        .first.map { r throws(PostgresDecodingError) in try clip(r) }
    }

    /// A clip with its audio if `userId` may fetch it: its uploader, or a member of a conversation with a
    /// message referencing it that the member sees (not deleted, not hidden by nobody's business: hiding is
    /// per user and only hides the message), or a member of a community (or an administrator) with a live post
    /// carrying it (announcements and lessons).
    public static func fetch(_ db: PostgresConnection, id: Int64, for userId: Int64) throws -> (VoiceClip, [UInt8])? {
        guard
            let r = try db.execute(
                cached: """
                    SELECT \(columns), audio FROM voice_clips v WHERE v.id = $1 AND (v.uploader_id = $2 OR EXISTS (
                      SELECT 1 FROM messages m
                      JOIN members mb ON mb.conversation_id = m.conversation_id AND mb.user_id = $2
                      WHERE m.voice_id = v.id AND m.deleted_at IS NULL AND m.seq > mb.joined_seq
                        AND (mb.left_seq IS NULL OR m.seq <= mb.left_seq))
                    OR EXISTS (
                      SELECT 1 FROM community_posts p WHERE p.voice_clip_id = v.id AND p.deleted_at IS NULL AND (
                        EXISTS (SELECT 1 FROM community_members cm
                                WHERE cm.community_id = p.community_id AND cm.user_id = $2)
                        OR EXISTS (SELECT 1 FROM users a
                                   WHERE a.id = $2 AND a.role = 'admin' AND a.suspended_at IS NULL))))
                    """, [.int(id), .int(userId)]
            ).first
        else { return nil }
        return (try clip(r), try r.decode(PostgresBytes.self, column: 6).bytes)
    }
}
