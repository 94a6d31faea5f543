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

    /// One step of the tombstone purge over the messages with `after < id`, at most `scan` of them in id order:
    /// every message among them deleted before `cutoff` keeps only its place (conversation, seq, kind, sender,
    /// times: others' histories keep their seqs and stay gapless) and loses what deletion left behind: its
    /// client id, its voice clip reference and its reactions; a voice clip no message references any more after
    /// this is deleted too (its audio). Per-user hidden marks stay (a tombstone someone hid stays hidden).
    /// Returns the tombstones purged, the rows removed in all (reactions, voice clips) and the highest id scanned
    /// (nil: no more messages).
    public static func purgeTombstones(
        _ db: PostgresConnection, deletedBefore cutoff: Date, after: Int64, scan: Int
    ) throws -> (tombstones: Int, rowsRemoved: Int, lastScanned: Int64?) {
        guard
            let row = try db.execute(
                cached: "SELECT max(id) FROM (SELECT id FROM messages WHERE id > $1 ORDER BY id LIMIT $2) s",
                [.int(after), .int(scan)]
            ).first, let last = try row.decode(Int64?.self, column: 0)
        else { return (0, 0, nil) }
        // The tombstones of the range that still carry something.
        let ids = try db.execute(
            cached: """
                SELECT m.id FROM messages m
                WHERE m.id > $1 AND m.id <= $2 AND m.deleted_at < $3
                  AND (m.client_id IS NOT NULL OR m.voice_id IS NOT NULL OR m.body IS NOT NULL
                       OR EXISTS (SELECT 1 FROM message_reactions r WHERE r.message_id = m.id))
                FOR UPDATE OF m SKIP LOCKED
                """, [.int(after), .int(last), .timestamp(cutoff)]
        ).map { try $0.decode(Int64.self, column: 0) }
        guard !ids.isEmpty else { return (0, 0, last) }
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        var removed = 0
        removed += try db.execute(
            cached: "DELETE FROM message_reactions WHERE message_id = ANY($1::bigint[])", [.text(list)]
        ).affectedRows
        let clips = try db.execute(
            cached: """
                UPDATE messages m SET client_id = NULL, voice_id = NULL, body = NULL
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
        return (ids.count, removed, last)
    }
}
