//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import SwitchboardStore

/// Moments' part of account deletion (likes given, then the user's moments) and of the data export
/// (`moments.json`, `photos/<id>.jpg`).
public enum MomentsAccountData {
    /// Likes the user gave to moments (the moments' like counts decremented), then the user's moments, deleted
    /// for real (their photo links and likes cascade).
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("moment_likes", order: 190) { db, userId, limit in
            try db.execute(
                cached: """
                    WITH d AS (DELETE FROM moment_likes WHERE (moment_id, user_id) IN (
                            SELECT moment_id, user_id FROM moment_likes WHERE user_id = $1 ORDER BY moment_id LIMIT $2)
                            RETURNING moment_id),
                    c AS (UPDATE moments m SET like_count = greatest(0, m.like_count - 1) FROM d
                          WHERE m.id = d.moment_id RETURNING 1)
                    SELECT count(*) FROM d
                    """, [.int(userId), .int(limit)]
            ).decodeFirst(Int.self) ?? 0
        },
        .rows("moments", order: 200) { db, userId, limit in
            try db.execute(
                cached: "DELETE FROM moments WHERE id IN (SELECT id FROM moments WHERE owner_id = $1 LIMIT $2)",
                [.int(userId), .int(limit)]
            ).affectedRows
        },
    ]

    /// `moments.json` of an export: the user's photos (metadata; the bytes are `photos/<id>.jpg`) and moments.
    struct ExportedMoments: Encodable {
        var photos: [Photo]
        var moments: [Moment]
    }

    /// `moments.json` ({photos, moments}: every photo's metadata, the user's moments as the user sees them) and
    /// `photos/<id>.jpg`, the display JPEG of each photo (the original is not kept).
    public static let exportSection = AccountExportSection(files: "moments.json, photos/<id>.jpg", order: 100) { c in
        let userId = c.userId
        let (photos, moments) = try await c.pool.withConnection { db in
            let photos = try MomentRepository.mine(db, owner: userId, before: nil, limit: Int(Int32.max))
            let ids = try db.execute(
                cached: "SELECT id FROM moments WHERE owner_id = $1 ORDER BY id DESC", [.int(userId)]
            ).decode(Int64.self, column: 0)
            return (photos, try MomentRepository.moments(db, ids: ids, viewer: userId))
        }
        try c.add("moments.json", json: ExportedMoments(photos: photos, moments: moments))
        for photo in photos {
            let jpeg = try await c.pool.withConnection { db in
                try db.execute(
                    cached: """
                        SELECT r.bytes FROM photo_renditions r JOIN photos p ON p.id = r.photo_id
                        WHERE r.photo_id = $1 AND p.owner_id = $2 AND r.size = 'display' AND r.format = 'jpeg'
                        """, [.int(photo.photoId), .int(userId)]
                ).first.map { try $0.decode(PostgresBytes.self, column: 0).bytes }
            }
            if let jpeg { try c.add("photos/\(photo.photoId).jpg", jpeg) }
        }
    }
}
