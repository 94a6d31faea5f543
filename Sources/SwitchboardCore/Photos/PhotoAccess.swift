//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardStore

/// Who may see a photo (`docs/photos.md`, Authorization). One rule for every photo URL and every op that shows
/// photos: a viewer may see photo P when P exists and
/// 1. the viewer owns it; or
/// 2. P is in a moment of a friend of the viewer, and neither blocked the other; or
/// 3. P is the avatar of a user whose profile the viewer may see (`SocialGraphRepository.canSeeProfile`: a friend, or
///    a live account with a handle; never across a block); or
/// 4. P is in a live post whose author the viewer may read (`PostRepository.visible`).
///
/// Everyone else is answered exactly as for a missing photo (404 / `not_found`).
public enum PhotoAccess {
    /// The SQL condition "`viewer` may see the photo `photo`" (both SQL expressions; `photo` is a photo id that
    /// exists: join or check `photos` yourself).
    public static func visible(viewer: String, photo: String) -> String {
        """
        (EXISTS (SELECT 1 FROM photos pa_p WHERE pa_p.id = \(photo) AND pa_p.owner_id = \(viewer))
         OR EXISTS (SELECT 1 FROM moment_photos pa_mp JOIN moments pa_m ON pa_m.id = pa_mp.moment_id
                    JOIN friendships pa_f ON pa_f.user_low = least(pa_m.owner_id, \(viewer)::bigint)
                                         AND pa_f.user_high = greatest(pa_m.owner_id, \(viewer)::bigint)
                    WHERE pa_mp.photo_id = \(photo)
                      AND NOT EXISTS (SELECT 1 FROM blocks pa_b
                                      WHERE (pa_b.blocker_id = pa_m.owner_id AND pa_b.blocked_id = \(viewer))
                                         OR (pa_b.blocker_id = \(viewer) AND pa_b.blocked_id = pa_m.owner_id)))
         OR EXISTS (SELECT 1 FROM users pa_u WHERE pa_u.avatar_photo_id = \(photo)
                      AND (pa_u.id = \(viewer)
                           OR (NOT EXISTS (SELECT 1 FROM blocks pa_b
                                           WHERE (pa_b.blocker_id = pa_u.id AND pa_b.blocked_id = \(viewer))
                                              OR (pa_b.blocker_id = \(viewer) AND pa_b.blocked_id = pa_u.id))
                               AND ((pa_u.handle IS NOT NULL AND pa_u.deleted_at IS NULL)
                                    OR EXISTS (SELECT 1 FROM friendships pa_f
                                               WHERE pa_f.user_low = least(pa_u.id, \(viewer)::bigint)
                                                 AND pa_f.user_high = greatest(pa_u.id, \(viewer)::bigint))))))
         OR EXISTS (SELECT 1 FROM post_photos pa_pp JOIN posts pa_po ON pa_po.id = pa_pp.post_id
                    WHERE pa_pp.photo_id = \(photo) AND pa_po.deleted_at IS NULL
                      AND \(PostRepository.visible(viewer: viewer, author: "pa_po.author_id"))))
        """
    }

    /// Whether `viewer` may see photo `photoId` (false for a missing photo too).
    public static func canView(_ db: PostgresConnection, viewer: Int64, photoId: Int64) throws -> Bool {
        try db.execute(
            cached: "SELECT \(visible(viewer: "$1::bigint", photo: "$2::bigint"))", [.int(viewer), .int(photoId)]
        ).decodeFirst(Bool.self) ?? false
    }
}
