//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of data exports (`data_exports`) and of collecting a user's data.
public enum AccountExportRepository {
    static let infoColumns = """
        id, state, \(WireTimestamp.sql("requested_at")),
        CASE WHEN expires_at IS NULL THEN NULL ELSE \(WireTimestamp.sql("expires_at")) END, size, error
        """

    static func info(_ r: PostgresRow) throws(PostgresDecodingError) -> DataExportInfo {
        DataExportInfo(
            exportId: try r.decode(column: 0), state: try r.decode(column: 1), requestedAt: try r.decode(column: 2),
            expiresAt: try r.decode(column: 3), size: try r.decode(column: 4), error: try r.decode(column: 5))
    }

    /// Starts an export (one transaction, under the user's row lock): `exportInProgress` while another is building,
    /// `exportsPerDay` when `perDay` were requested in the last 24 hours.
    public static func start(_ db: PostgresConnection, userId: Int64, perDay: Int) throws -> DataExportInfo {
        guard
            try db.execute(
                cached: "SELECT id FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE", [.int(userId)]
            ).first != nil
        else { throw AccountDataError.noSuchAccount }
        let r = try db.execute(
            cached: """
                SELECT count(*) FILTER (WHERE state = 'building'), count(*),
                  COALESCE(CEIL(EXTRACT(EPOCH FROM (min(requested_at) + interval '1 day' - now())) * 1000), 0)::bigint
                FROM data_exports WHERE user_id = $1 AND requested_at > now() - interval '1 day'
                """, [.int(userId)]
        ).first
        let building = try r?.decode(Int64.self, column: 0) ?? 0
        let today = try r?.decode(Int64.self, column: 1) ?? 0
        if building > 0 { throw AccountDataError.exportInProgress }
        if today >= perDay {
            let retry = max(1_000, try r?.decode(Int64.self, column: 2) ?? 1_000)
            throw AccountDataError.exportsPerDay(perDay, retryAfterMilliseconds: retry)
        }
        guard
            let row = try db.execute(
                cached: "INSERT INTO data_exports (user_id, state) VALUES ($1, 'building') RETURNING \(infoColumns)",
                [.int(userId)]
            ).first
        else { throw AccountDataError.exportNotStored }
        return try info(row)
    }

    /// The user's exports, newest first (at most 20).
    public static func list(_ db: PostgresConnection, userId: Int64) throws -> [DataExportInfo] {
        try db.execute(
            cached: "SELECT \(infoColumns) FROM data_exports WHERE user_id = $1 ORDER BY id DESC LIMIT 20",
            [.int(userId)]
        ).map { try info($0) }
    }

    /// Exports still building whose builder is gone (requested before `olderThanSeconds` ago): (id, user).
    public static func stale(_ db: PostgresConnection, olderThanSeconds: Double) throws -> [(Int64, Int64)] {
        try db.execute(
            cached: """
                SELECT id, user_id FROM data_exports WHERE state = 'building'
                AND requested_at < now() - make_interval(secs => $1::double precision) ORDER BY id LIMIT 100
                """, [.double(olderThanSeconds)]
        ).map { (try $0.decode(Int64.self, column: 0), try $0.decode(Int64.self, column: 1)) }
    }

    /// Marks an export ready (with its file, size and expiry) or failed; the updated info, nil when it is gone.
    public static func finish(
        _ db: PostgresConnection, id: Int64, file: String?, size: Int64?, ttlSeconds: Double, error: String?
    ) throws -> DataExportInfo? {
        try db.execute(
            cached: """
                UPDATE data_exports SET state = CASE WHEN $5::text IS NULL THEN 'ready' ELSE 'failed' END,
                  ready_at = now(),
                  expires_at = CASE WHEN $5::text IS NULL THEN now() + make_interval(secs => $4::double precision) END,
                  file = $2, size = $3, error = $5
                WHERE id = $1 AND state = 'building' RETURNING \(infoColumns)
                """,
            [.int(id), file.map { .text($0) }, size.map { .int($0) }, .double(ttlSeconds), error.map { .text($0) }]
        ).first.map { try info($0) }
    }

    /// Marks expired exports and returns their files (to delete).
    public static func expire(_ db: PostgresConnection) throws -> [String] {
        try db.execute(
            cached: """
                UPDATE data_exports SET state = 'expired', file = NULL WHERE state = 'ready' AND expires_at <= now()
                RETURNING file
                """
        ).compactMap { try $0.decode(String?.self, column: 0) }
    }

    /// Every file a live export row names (the others in the folder are leftovers).
    public static func liveFiles(_ db: PostgresConnection) throws -> Set<String> {
        Set(
            try db.execute(cached: "SELECT file FROM data_exports WHERE file IS NOT NULL").map {
                try $0.decode(String.self, column: 0)
            })
    }

    /// The file of a ready, unexpired export of `userId` (nil for anyone else's, or an unknown id).
    public static func readyFile(_ db: PostgresConnection, id: Int64, userId: Int64) throws -> String? {
        try db.execute(
            cached: """
                SELECT file FROM data_exports WHERE id = $1 AND user_id = $2 AND state = 'ready' AND expires_at > now()
                """,
            [.int(id), .int(userId)]
        ).first.map { try $0.decode(String?.self, column: 0) } ?? nil
    }

    /// Deletes data-export rows of `userId` (at most `limit`), for account deletion: the rows deleted and the files
    /// they named, to remove once the batch has committed.
    public static func deleteBatch(
        _ db: PostgresConnection, userId: Int64, limit: Int
    ) throws -> (rows: Int, files: [String]) {
        let files = try db.execute(
            cached: """
                DELETE FROM data_exports WHERE id IN (SELECT id FROM data_exports WHERE user_id = $1 LIMIT $2)
                RETURNING file
                """, [.int(userId), .int(limit)]
        ).map { try $0.decode(String?.self, column: 0) }
        return (files.count, files.compactMap { $0 })
    }

    // MARK: collecting

    private struct Manifest: Encodable {
        var format = "switchboard-export-1"
        var userId: Int64
        var exportId: Int64
        var createdAt: String
        var files: [String]
    }

    /// Collects the user's data as the archive's files: every registered section in order (each feature's files,
    /// `docs/protocol.md`, "Account deletion and export"), then `manifest.json` listing them. Reads in pages, each on
    /// a connection lease of its own.
    /// - Throws: `ExportTooLarge` past the collector's limit, or the store's error.
    public static func collect(_ collector: AccountExportCollector, sections: [AccountExportSection]) async throws
        -> [ExportEntry]
    {
        for section in sections.sorted(by: { $0.order < $1.order }) {
            try await section.collect(collector)
        }
        let now = try await collector.pool.withConnection { db in
            try db.execute(cached: "SELECT \(WireTimestamp.sql("now()"))").decodeFirst(String.self) ?? ""
        }
        let files = collector.entries.map(\.path) + ["manifest.json"]
        try collector.add(
            "manifest.json",
            json: Manifest(userId: collector.userId, exportId: collector.exportId, createdAt: now, files: files))
        return collector.entries
    }
}
