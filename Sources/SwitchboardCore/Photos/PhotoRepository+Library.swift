//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of one's own photos and avatar (`photos.delete`, `profile.avatar.*`) and of a photo's info
/// (`GET /photos/{id}/info`). Rule violations throw `PhotoError`.
extension PhotoRepository {
    /// What `photos.delete` changed besides the photo: moments left without photos (deleted too), whether the
    /// owner's avatar was this photo (now cleared) and the posts that carried it.
    public struct Deletion: Sendable, Equatable {
        /// The moments deleted with their last photo, in id order.
        public var deletedMoments: [Int64] = []
        /// The owner's avatar was this photo.
        public var avatarCleared = false
        /// The live posts that carried this photo (their `post.photos` is told), in id order.
        public var posts: [Int64] = []
    }

    /// `photos.delete`: deletes `owner`'s photo for real (cascades remove it from moments and posts and clear the
    /// avatar); a moment left without photos is deleted too.
    /// - Throws: `PhotoError.noSuchPhoto` when the photo is missing or someone else's.
    public static func deleteOwned(_ db: PostgresConnection, owner: Int64, photoId: Int64) throws -> Deletion {
        var result = Deletion()
        guard
            try !db.execute(
                cached: "SELECT 1 FROM photos WHERE id = $1 AND owner_id = $2 FOR UPDATE", [.int(photoId), .int(owner)]
            ).isEmpty
        else { throw PhotoError.noSuchPhoto }
        result.avatarCleared = try !db.execute(
            cached: "SELECT 1 FROM users WHERE id = $1 AND avatar_photo_id = $2 FOR UPDATE",
            [.int(owner), .int(photoId)]
        ).isEmpty
        let moments = try db.execute(
            cached: "SELECT DISTINCT moment_id FROM moment_photos WHERE photo_id = $1", [.int(photoId)]
        ).decode(Int64.self, column: 0)
        result.posts = try db.execute(
            cached: """
                SELECT DISTINCT pp.post_id FROM post_photos pp JOIN posts p ON p.id = pp.post_id
                WHERE pp.photo_id = $1 AND p.deleted_at IS NULL ORDER BY pp.post_id
                """, [.int(photoId)]
        ).decode(Int64.self, column: 0)
        try db.execute(cached: "DELETE FROM photos WHERE id = $1", [.int(photoId)])
        if !moments.isEmpty {
            result.deletedMoments = try db.execute(
                cached: """
                    DELETE FROM moments m WHERE m.id = ANY($1::bigint[])
                      AND NOT EXISTS (SELECT 1 FROM moment_photos mp WHERE mp.moment_id = m.id)
                    RETURNING m.id
                    """, [.text(MessageStore.bigintArray(moments))]
            ).decode(Int64.self, column: 0).sorted()
        }
        return result
    }

    /// Sets (`photoId`, one of `user`'s photos, locked `FOR KEY SHARE` so a concurrent `photos.delete` waits or
    /// wins first) or clears (nil) `user`'s avatar.
    /// - Throws: `PhotoError.noSuchPhoto` when the photo is missing or someone else's.
    public static func setAvatar(_ db: PostgresConnection, user: Int64, photoId: Int64?) throws {
        if let photoId {
            guard
                try !db.execute(
                    cached: "SELECT id FROM photos WHERE owner_id = $1 AND id = ANY($2::bigint[]) FOR KEY SHARE",
                    [.int(user), .text(MessageStore.bigintArray([photoId]))]
                ).isEmpty
            else { throw PhotoError.noSuchPhoto }
        }
        try db.execute(
            cached: "UPDATE users SET avatar_photo_id = $2 WHERE id = $1", [.int(user), photoId.map { .int($0) }])
    }

    /// Who sees `user`'s profile changes live: `user`, the friends and the active followers.
    public static func profileAudience(_ db: PostgresConnection, of user: Int64) throws -> [Int64] {
        [user]
            + (try db.execute(
                cached: """
                    SELECT CASE WHEN user_low = $1 THEN user_high ELSE user_low END FROM friendships
                    WHERE user_low = $1 OR user_high = $1
                    UNION SELECT follower_id FROM follows WHERE followee_id = $1 AND state = 'active'
                    """, [.int(user)]
            ).decode(Int64.self, column: 0))
    }

    /// `GET /photos/{id}/info`: the photo's metadata and its renditions' sizes, if `viewer` may see it
    /// (`PhotoAccess`, the rule of `GET /photos/{id}`), else nil (missing and invisible alike). Reads no bytes:
    /// a rendition's length comes from its stored header.
    public static func info(_ db: PostgresConnection, viewer: Int64, photoId: Int64) throws -> PhotoInfo? {
        guard
            let r = try db.execute(
                cached: """
                    SELECT ph.id, ph.owner_id, ph.width, ph.height, ph.format, ph.color, ph.has_alpha,
                           \(WireTimestamp.sql("ph.created_at"))
                    FROM photos ph
                    WHERE ph.id = $2 AND \(PhotoAccess.visible(viewer: "$1::bigint", photo: "$2::bigint"))
                    """, [.int(viewer), .int(photoId)]
            ).first
        else { return nil }
        let id: Int64 = try r.decode(column: 0)
        let renditions = try db.execute(
            cached: """
                SELECT size, format, width, height, octet_length(bytes)::bigint FROM photo_renditions
                WHERE photo_id = $1 ORDER BY size, format DESC
                """, [.int(id)]
        ).map { row throws(PostgresDecodingError) in
            let size: String = try row.decode(column: 0)
            let format: String = try row.decode(column: 1)
            return PhotoRenditionInfo(
                size: size, format: format, width: try row.decode(column: 2), height: try row.decode(column: 3),
                byteCount: try row.decode(column: 4), url: "/photos/\(id)?size=\(size)&format=\(format)")
        }
        return PhotoInfo(
            photoId: id, ownerId: try r.decode(column: 1), width: try r.decode(column: 2),
            height: try r.decode(column: 3),
            format: try r.decode(column: 4), color: try r.decode(column: 5), hasAlpha: try r.decode(column: 6),
            createdAt: try r.decode(column: 7), renditions: renditions)
    }
}
