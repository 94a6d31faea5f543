//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
import SwitchboardDomain
public import SwitchboardStore

/// The SQL of the retention sweep (`docs/operations.md`, "Retention"): each function removes at most
/// `limit` rows older than a cutoff in one statement, so a caller runs it in bounded batches, each in its own
/// short transaction.
public enum RetentionRepository {
    /// The key of the advisory lock that keeps the sweep to one node at a time ("SBRETAIN" in ASCII).
    public static let advisoryLockKey: Int64 = 0x5342_5245_5441_494E

    /// Takes the sweep's transaction-level advisory lock if it is free; whether it was taken (it is released when
    /// the transaction ends). Call inside a transaction.
    public static func tryLock(_ db: PostgresConnection) throws -> Bool {
        try db.execute(cached: "SELECT pg_try_advisory_xact_lock($1)", [.int(advisoryLockKey)]).decodeFirst(Bool.self)
            ?? false
    }

    /// Deletes up to `limit` call records (the call history) that ended before `cutoff`, oldest first; how many.
    /// The call's system message in the one-to-one conversation is a message and stays.
    public static func deleteCallRecords(_ db: PostgresConnection, endedBefore cutoff: Date, limit: Int) throws -> Int {
        try db.execute(
            cached: """
                DELETE FROM calls WHERE id IN (
                    SELECT id FROM calls WHERE ended_at < $1 ORDER BY ended_at LIMIT $2 FOR UPDATE SKIP LOCKED)
                """, [.timestamp(cutoff), .int(limit)]
        ).affectedRows
    }

    /// Deletes up to `limit` sessions revoked (logged out, revoked from another device) before `cutoff`; how many.
    /// Live sessions have no expiry time in this schema and are never touched.
    public static func deleteRevokedSessions(_ db: PostgresConnection, revokedBefore cutoff: Date, limit: Int) throws
        -> Int
    {
        try db.execute(
            cached: """
                DELETE FROM sessions WHERE id IN (
                    SELECT id FROM sessions WHERE revoked_at < $1 ORDER BY revoked_at LIMIT $2 FOR UPDATE SKIP LOCKED)
                """, [.timestamp(cutoff), .int(limit)]
        ).affectedRows
    }

    /// One step of the tombstone purge: at most `limit` messages deleted before `cutoff` and not purged yet, oldest
    /// deletion first, read through the partial index `messages_tombstones_to_purge` (migration 15; the sweep never
    /// walks the messages table). Each keeps only its place (conversation, seq, kind, sender, times: others'
    /// histories keep their seqs and stay gapless), loses what deletion left behind (its client id, its voice clip
    /// reference and its reactions) and is marked `tombstone_purged`, which takes it out of the index; a voice clip
    /// no message references any more after this is deleted too (its audio). Per-user hidden marks stay (a
    /// tombstone someone hid stays hidden). Rows another transaction holds are skipped (the next sweep takes them).
    /// Returns the tombstones purged, the rows removed in all (reactions, voice clips) and whether the batch was
    /// full (more may be waiting).
    public static func purgeTombstones(
        _ db: PostgresConnection, deletedBefore cutoff: Date, limit: Int
    ) throws -> (tombstones: Int, rowsRemoved: Int, more: Bool) {
        let ids = try db.execute(
            cached: """
                SELECT id FROM messages
                WHERE deleted_at IS NOT NULL AND NOT tombstone_purged AND deleted_at < $1
                ORDER BY deleted_at, id LIMIT $2
                FOR UPDATE SKIP LOCKED
                """, [.timestamp(cutoff), .int(limit)]
        ).map { try $0.decode(Int64.self, column: 0) }
        guard !ids.isEmpty else { return (0, 0, false) }
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        var removed = 0
        removed += try db.execute(
            cached: "DELETE FROM message_reactions WHERE message_id = ANY($1::bigint[])", [.text(list)]
        ).affectedRows
        let clips = try db.execute(
            cached: """
                UPDATE messages m SET client_id = NULL, voice_id = NULL, body = NULL, tombstone_purged = true
                FROM (SELECT id, voice_id FROM messages WHERE id = ANY($1::bigint[])) old
                WHERE m.id = old.id RETURNING old.voice_id
                """, [.text(list)]
        ).compactMap { try $0.decode(Int64?.self, column: 0) }
        if !clips.isEmpty {
            let clipList = "{" + Set(clips).map(String.init).joined(separator: ",") + "}"
            removed += try db.execute(
                cached: """
                    DELETE FROM voice_clips v WHERE v.id = ANY($1::bigint[])
                      AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.voice_id = v.id)
                    """, [.text(clipList)]
            ).affectedRows
        }
        return (ids.count, removed, ids.count == limit)
    }
}
