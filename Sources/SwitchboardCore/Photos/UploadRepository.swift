//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardStore

/// The SQL of resumable uploads (`docs/photos.md`, Resumable uploads). Chunks are rows, so a PATCH may reach any node
/// of a cluster. Runs on a leased connection's queue.
public enum UploadRepository {
    static let columns = "id, owner_id, kind, length, received, metadata"

    static func record(_ r: PostgresRow) throws(PostgresDecodingError) -> UploadRecord {
        UploadRecord(
            id: try r.decode(column: 0), ownerId: try r.decode(column: 1), kind: try r.decode(column: 2),
            length: try r.decode(column: 3),
            received: try r.decode(column: 4), metadata: try r.decode(column: 5))
    }

    /// Creates an upload unless `owner` already has `maxPending` in progress (then nil).
    public static func create(
        _ db: PostgresConnection, id: String, owner: Int64, kind: String, length: Int64, metadata: String,
        maxPending: Int
    ) throws -> UploadRecord? {
        try db.transaction { db in
            // Serializes one owner's creations so the count holds under concurrency.
            try db.execute(cached: "SELECT pg_advisory_xact_lock(7919, $1::int)", [.int(owner % 2_000_000_000)])
            let pending =
                try db.execute(cached: "SELECT count(*)::bigint FROM uploads WHERE owner_id = $1", [.int(owner)])
                .decodeFirst(Int64.self) ?? 0
            guard pending < maxPending else { return nil }
            return try db.execute(
                cached: """
                    INSERT INTO uploads (id, owner_id, kind, length, metadata) VALUES ($1, $2, $3, $4, $5)
                    RETURNING \(columns)
                    """,
                [.text(id), .int(owner), .text(kind), .int(length), .text(metadata)]
            ).first.map { r throws(PostgresDecodingError) in try record(r) }
        }
    }

    /// `owner`'s upload (nil for a missing one or another user's).
    public static func get(_ db: PostgresConnection, id: String, owner: Int64) throws -> UploadRecord? {
        try db.execute(
            cached: "SELECT \(columns) FROM uploads WHERE id = $1 AND owner_id = $2", [.text(id), .int(owner)]
        )
        .first.map { r throws(PostgresDecodingError) in try record(r) }
    }

    /// Appends `data` at `offset` if that is still the upload's offset and it fits. Returns the new offset, or nil
    /// when the upload is gone or its offset moved (a concurrent PATCH).
    public static func append(_ db: PostgresConnection, id: String, owner: Int64, offset: Int64, data: [UInt8]) throws
        -> Int64?
    {
        guard !data.isEmpty else {
            return try get(db, id: id, owner: owner).flatMap { $0.received == offset ? offset : nil }
        }
        return try db.transaction { db in
            guard
                let received = try db.execute(
                    cached: """
                        UPDATE uploads SET received = received + $4, updated_at = now()
                        WHERE id = $1 AND owner_id = $2 AND received = $3 AND received + $4 <= length RETURNING received
                        """, [.text(id), .int(owner), .int(offset), .int(data.count)]
                ).decodeFirst(Int64.self)
            else { return nil }
            try db.execute(
                cached: "INSERT INTO upload_chunks (upload_id, \"offset\", data) VALUES ($1, $2, $3)",
                [.text(id), .int(offset), .bytea(data)])
            return received
        }
    }

    /// A complete upload's bytes (nil when missing, another user's, or not complete).
    public static func completeBytes(_ db: PostgresConnection, id: String, owner: Int64) throws -> (
        UploadRecord, [UInt8]
    )? {
        guard let upload = try get(db, id: id, owner: owner), upload.received == upload.length else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(upload.length))
        for r in try db.execute(
            cached: "SELECT \"offset\", data FROM upload_chunks WHERE upload_id = $1 ORDER BY \"offset\"", [.text(id)])
        {
            let offset: Int64 = try r.decode(column: 0)
            guard offset == Int64(bytes.count) else {
                throw ServiceError.invariant(
                    "chunk at \(offset) after \(bytes.count) bytes", message: "upload chunks do not line up")
            }
            bytes += try r.decode(PostgresBytes.self, column: 1).bytes
        }
        guard bytes.count == Int(upload.length) else {
            throw ServiceError.invariant(
                "\(bytes.count) bytes of \(upload.length)", message: "upload chunks do not add up")
        }
        return (upload, bytes)
    }

    /// Deletes `owner`'s upload and its chunks; false when there was none.
    @discardableResult
    public static func delete(_ db: PostgresConnection, id: String, owner: Int64) throws -> Bool {
        try !db.execute(
            cached: "DELETE FROM uploads WHERE id = $1 AND owner_id = $2 RETURNING id", [.text(id), .int(owner)]
        ).isEmpty
    }

    /// Deletes uploads idle for more than `seconds`; returns how many.
    @discardableResult
    public static func deleteIdle(_ db: PostgresConnection, olderThanSeconds seconds: Double) throws -> Int {
        try db.execute(
            cached: "DELETE FROM uploads WHERE updated_at < now() - make_interval(secs => $1) RETURNING id",
            [.double(seconds)]
        ).count
    }
}
