//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of photos and their renditions (`docs/photos.md`, Storage). Runs on a leased connection's queue.
public enum PhotoRepository {
    /// SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] { SessionToken.sha256(bytes) }

    /// Lower-case hex of `bytes` (ETags).
    public static func hex(_ bytes: [UInt8]) -> String { VoiceStore.hex(bytes) }

    static let columns = "id, owner_id, width, height, color, has_alpha, \(WireTimestamp.sql("created_at"))"

    static func record(_ r: PostgresRow) throws(PostgresDecodingError) -> PhotoRecord {
        PhotoRecord(
            id: try r.decode(column: 0), ownerId: try r.decode(column: 1), width: try r.decode(column: 2),
            height: try r.decode(column: 3),
            color: try r.decode(column: 4), hasAlpha: try r.decode(column: 5), createdAt: try r.decode(column: 6))
    }

    /// The hash of an upload `owner` already stored, if any (checked before processing: a duplicate is not decoded).
    public static func existing(_ db: PostgresConnection, owner: Int64, sha256: [UInt8]) throws -> PhotoRecord? {
        try db.execute(
            cached: "SELECT \(columns) FROM photos WHERE owner_id = $1 AND sha256 = $2", [.int(owner), .bytea(sha256)]
        )
        .first.map { r throws(PostgresDecodingError) in try record(r) }
    }

    /// Stores a processed photo and its renditions in one transaction, or returns the owner's photo with the same
    /// input hash (`duplicate` true; nothing written). The owner's account is locked against deletion first
    /// (`ActingAccount`): a deleted account's upload stores nothing (`DatabaseError.accountDeleted`).
    public static func store(_ db: PostgresConnection, owner: Int64, photo: PhotoInput) throws -> (
        photo: PhotoRecord, duplicate: Bool
    ) {
        try db.transaction { db in
            try ActingAccount.lock(db, owner)
            let inserted = try db.execute(
                cached: """
                    INSERT INTO photos (owner_id, sha256, format, width, height, color, has_alpha, kept_metadata)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                    ON CONFLICT (owner_id, sha256) DO NOTHING RETURNING \(columns)
                    """,
                [
                    .int(owner), .bytea(photo.sha256), .text(photo.format), .int(photo.width), .int(photo.height),
                    .text(photo.color),
                    .bool(photo.hasAlpha), .bool(photo.keptMetadata),
                ])
            guard let row = inserted.first else {
                guard let found = try existing(db, owner: owner, sha256: photo.sha256) else {
                    throw ServiceError.invariant("a photo neither inserted nor found by its hash")
                }
                return (found, true)
            }
            let stored = try record(row)
            for r in photo.renditions {
                try db.execute(
                    cached: """
                        INSERT INTO photo_renditions (photo_id, size, format, width, height, bytes, sha256)
                        VALUES ($1, $2, $3, $4, $5, $6, $7)
                        """,
                    [
                        .int(stored.id), .text(r.size), .text(r.format), .int(r.width), .int(r.height), .bytea(r.bytes),
                        .bytea(r.sha256),
                    ])
            }
            return (stored, false)
        }
    }

    /// A rendition if `viewer` may see the photo (`PhotoAccess`), else nil (missing and forbidden alike). The
    /// authorization runs on every call; the bytes are read only when `withBytes` (a cache miss).
    public static func fetchRendition(
        _ db: PostgresConnection, viewer: Int64, photoId: Int64, size: String, format: String, withBytes: Bool
    ) throws -> PhotoRenditionBytes? {
        guard
            let r = try db.execute(
                cached: """
                    SELECT r.sha256, CASE WHEN $5 THEN r.bytes END FROM photo_renditions r
                    WHERE r.photo_id = $2 AND r.size = $3 AND r.format = $4
                      AND \(PhotoAccess.visible(viewer: "$1::bigint", photo: "$2::bigint"))
                    """, [.int(viewer), .int(photoId), .text(size), .text(format), .bool(withBytes)]
            ).first
        else { return nil }
        let bytes = try r.decode(PostgresBytes?.self, column: 1)?.bytes
        return PhotoRenditionBytes(sha256: try r.decode(PostgresBytes.self, column: 0).bytes, bytes: bytes)
    }

    /// A photo's metadata, if it exists (no authorization: callers check `PhotoAccess` or ownership).
    public static func get(_ db: PostgresConnection, id: Int64) throws -> PhotoRecord? {
        try db.execute(cached: "SELECT \(columns) FROM photos WHERE id = $1", [.int(id)]).first.map {
            r throws(PostgresDecodingError) in
            try record(r)
        }
    }

    /// Photos by id (any order; missing ids are left out; no authorization).
    public static func get(_ db: PostgresConnection, ids: [Int64]) throws -> [Int64: PhotoRecord] {
        guard !ids.isEmpty else { return [:] }
        let list = ids.map(String.init).joined(separator: ",")
        var out: [Int64: PhotoRecord] = [:]
        for r in try db.execute(
            cached: "SELECT \(columns) FROM photos WHERE id = ANY($1::bigint[])", [.text("{\(list)}")])
        {
            let p = try record(r)
            out[p.id] = p
        }
        return out
    }

    /// `owner`'s photos, newest first, with ids below `before`.
    public static func list(_ db: PostgresConnection, owner: Int64, before: Int64?, limit: Int) throws -> [PhotoRecord]
    {
        try db.execute(
            cached: "SELECT \(columns) FROM photos WHERE owner_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
            [.int(owner), .int(before ?? Int64.max), .int(limit)]
        ).map { r throws(PostgresDecodingError) in try record(r) }
    }

    /// Deletes `owner`'s photo (the cascades remove it from moments and posts and clear an avatar). False when
    /// there is no such photo of `owner`.
    @discardableResult
    public static func delete(_ db: PostgresConnection, owner: Int64, id: Int64) throws -> Bool {
        try !db.execute(
            cached: "DELETE FROM photos WHERE id = $1 AND owner_id = $2 RETURNING id", [.int(id), .int(owner)]
        ).isEmpty
    }

    /// Whether every id is a photo of `owner`.
    public static func allOwned(_ db: PostgresConnection, owner: Int64, ids: [Int64]) throws -> Bool {
        guard !ids.isEmpty else { return true }
        let list = Set(ids).map(String.init).joined(separator: ",")
        let count =
            try db.execute(
                cached: "SELECT count(*)::bigint FROM photos WHERE owner_id = $1 AND id = ANY($2::bigint[])",
                [.int(owner), .text("{\(list)}")]
            ).decodeFirst(Int64.self) ?? 0
        return count == Set(ids).count
    }
}
