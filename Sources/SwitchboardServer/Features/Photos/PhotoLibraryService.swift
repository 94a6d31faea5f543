//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// The use cases of one's photos and avatar (docs/protocol.md, "Photos and avatars") and of a photo's info
/// (`GET /photos/{id}/info`). The bytes arrive and leave over HTTP through `PhotoService` (the upload pipeline,
/// the renditions' cache and tus); these only list, delete, reference and describe the stored photos. Writing
/// touches only the caller's own photos (anyone else's is `noSuchPhoto`, exactly as a missing one); reading a
/// photo's info follows `PhotoAccess`, the rule of `GET /photos/{id}`. Off the loops only.
final class PhotoLibraryService: Sendable {
    let db: any Database
    /// Where the posts that lost a photo are told to live pages (`post.photos`).
    let live: any SocialPublisher

    /// `photos.mine` page size: default and most.
    static let defaultPage = 30
    static let maxPage = 100

    init(db: any Database, live: any SocialPublisher) {
        self.db = db
        self.live = live
    }

    /// `photos.mine`: the caller's photos, newest first, older than `before` (a photo id).
    func mine(user: Int64, before: Int64?, limit: Int?) async throws(PhotoError) -> Ops.PhotosMine.Result {
        let limit = limit ?? Self.defaultPage
        guard (1...Self.maxPage).contains(limit) else { throw .pageLimit(max: Self.maxPage) }
        return try await db.read(as: PhotoError.self) { db in
            let rows = try MomentRepository.mine(db, owner: user, before: before, limit: limit + 1)
            let page = Array(rows.prefix(limit))
            return .init(photos: page, nextBefore: rows.count > limit ? page.last?.photoId : nil)
        }
    }

    /// `photos.delete`: one of the caller's photos, deleted for real (from moments, posts and the avatar too). A
    /// moment left without photos is deleted and its audience hears `moment.deleted`; an avatar cleared this way
    /// is announced as `profile.updated`; the live viewers of each post that carried it hear `post.photos` (handed
    /// to live pages after the commit).
    func delete(_ caller: Caller, photoId: Int64) async throws(PhotoError) -> [DomainEvent] {
        let me = caller.userId
        let (deletion, audience, profile) = try await db.write(as: PhotoError.self) { db in
            let deletion = try PhotoRepository.deleteOwned(db, owner: me, photoId: photoId)
            let audience = deletion.deletedMoments.isEmpty ? [] : try MomentRepository.audience(db, of: me)
            let profile = deletion.avatarCleared ? try Self.profileChange(db, me) : nil
            return (deletion, audience, profile)
        }
        for post in deletion.posts { live.publish(.photos(postId: post)) }
        var events = deletion.deletedMoments.map { id in
            DomainEvent(to: audience, MomentEvents.Deleted(momentId: id, ownerId: me))
        }
        if let profile { events.append(profile.event) }
        return events
    }

    /// `profile.avatar.set` (`photoId`, one of the caller's) or `profile.avatar.remove` (nil): the caller's own
    /// profile after the change; its devices, friends and active followers hear `profile.updated`.
    func setAvatar(_ caller: Caller, photoId: Int64?) async throws(PhotoError) -> (AvatarResult, [DomainEvent]) {
        let me = caller.userId
        let change = try await db.write(as: PhotoError.self) { db in
            try PhotoRepository.setAvatar(db, user: me, photoId: photoId)
            return try Self.profileChange(db, me)
        }
        return (AvatarResult(profile: change.own), [change.event])
    }

    /// `GET /photos/{id}/info`: the photo's metadata and renditions for a viewer who may see it (`PhotoAccess`:
    /// the owner, a friend for a moment's photo, whoever may see the profile for an avatar, whoever may read the
    /// post for a post's photo; never across a block). A missing, malformed (nil) or invisible id is `noSuchPhoto`.
    func info(viewer: Int64, photoId: Int64?) async throws(PhotoError) -> PhotoInfo {
        guard let photoId else { throw .noSuchPhoto }
        let info = try await db.read(as: PhotoError.self) { db in
            try PhotoRepository.info(db, viewer: viewer, photoId: photoId)
        }
        guard let info else { throw .noSuchPhoto }
        return info
    }

    /// `user`'s own profile (as `profile.get` of oneself shows it) and the `profile.updated` event for the user's
    /// devices, friends and active followers (the public fields only: no phone, role, zone, locale or policy).
    static func profileChange(_ db: PostgresConnection, _ user: Int64) throws -> (own: UserProfile, event: DomainEvent)
    {
        guard var profile = try UserRepository.profile(db, of: user) else { throw PhotoError.noSuchUser }
        try SocialGraphRepository.decorate(db, &profile, viewer: user)
        let own = UserProfile(profile)
        let shown = UserProfile(
            userId: own.userId, displayName: own.displayName, handle: own.handle, bio: own.bio,
            protected: own.protected, stats: own.stats, avatar: own.avatar)
        let users = try PhotoRepository.profileAudience(db, of: user)
        return (own, DomainEvent(to: users, ServerEvent.ProfileUpdated(profile: shown)))
    }
}
