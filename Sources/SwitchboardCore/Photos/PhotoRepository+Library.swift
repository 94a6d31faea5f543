//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardStore

/// The SQL of one's own photos and avatar (`photos.delete`, `profile.avatar.*`). Rule violations throw `PhotoError`.
extension PhotoRepository {
    /// What `photos.delete` changed besides the photo: moments left without photos (deleted too) and whether
    /// the owner's avatar was this photo (now cleared).
    public struct Deletion: Sendable, Equatable {
        /// The moments deleted with their last photo, in id order.
        public var deletedMoments: [Int64] = []
        /// The owner's avatar was this photo.
        public var avatarCleared = false
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
}
