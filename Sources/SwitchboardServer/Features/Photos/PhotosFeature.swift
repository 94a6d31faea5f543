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

/// One's own photos and the profile picture: `photos.mine`, `photos.delete`, `profile.avatar.set`,
/// `profile.avatar.remove` (docs/protocol.md, "Photos and avatars"). The bytes arrive over HTTP (`POST /photos`,
/// docs/photos.md); these ops only list, delete and reference them. Each write is one transaction; after its
/// commit `profile.updated` goes to my devices, friends and active followers, and `moment.deleted` for a moment
/// left without photos to the moment's audience (through `deliveries`, which reaches every node).
struct PhotosFeature: Feature {
    static let migrations: [Migration] = [.v0013Photos]

    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.add(PhotosAccountData.deletionSteps)
        // Uploads, downloads and tus: `session` routes (tokens checked before bodies, bodies into upload slots).
        for path in ["/photos", "/photos/{id...}", "/uploads", "/uploads/{id...}"] {
            registry.routes.addSession(["*"], path) { session, head, rest, _ in session.handlePhotos(head, rest: rest) }
        }
        registry.operations.register(Ops.PhotosMine.self) { s, p async throws(ServiceError) -> Ops.PhotosMine.Result in
            let limit = try pageSize(p.limit, default: 30, max: 100)
            let me = s.userId
            return try await ModerationFeature.database(s) { db in
                let rows = try MomentRepository.mine(db, owner: me, before: p.before, limit: limit + 1)
                let page = Array(rows.prefix(limit))
                return .init(photos: page, nextBefore: rows.count > limit ? page.last?.photoId : nil)
            }
        }
        registry.operations.register(Ops.PhotosDelete.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            let (deletion, audience, profile) = try await ModerationFeature.database(s, transaction: true) { db in
                let deletion = try MomentRepository.deletePhoto(db, owner: me, photoId: p.photoId)
                let audience = deletion.deletedMoments.isEmpty ? [] : try MomentRepository.audience(db, of: me)
                let profile = deletion.avatarCleared ? try Self.profileChange(db, me) : nil
                return (deletion, audience, profile)
            }
            for id in deletion.deletedMoments {
                s.services.deliveries.push(
                    PushEvent(
                        users: audience,
                        bytes: ProtocolCodec.encodeEvent(MomentEvents.Deleted(momentId: id, ownerId: me))))
            }
            if let profile { s.services.deliveries.push(profile.event) }
            return Empty()
        }
        registry.operations.register(Ops.ProfileAvatarSet.self) { s, p async throws(ServiceError) -> AvatarResult in
            try await Self.setAvatar(s, p.photoId)
        }
        registry.operations.register(Ops.ProfileAvatarRemove.self) { s, _ async throws(ServiceError) -> AvatarResult in
            try await Self.setAvatar(s, nil)
        }
    }

    static func setAvatar<Op>(_ s: RequestContext<Op>.Snapshot, _ photoId: Int64?) async throws(ServiceError) -> AvatarResult {
        let me = s.userId
        let change = try await ModerationFeature.database(s, transaction: true) { db in
            try MomentRepository.setAvatar(db, user: me, photoId: photoId)
            return try Self.profileChange(db, me)
        }
        s.services.deliveries.push(change.event)
        return AvatarResult(profile: change.own)
    }

    /// `user`'s own profile (as `profile.get` of oneself shows it) and the `profile.updated` event for the
    /// user's devices, friends and active followers (the public fields only: no phone, role, zone, locale or policy).
    static func profileChange(_ db: PostgresConnection, _ user: Int64) throws -> (own: UserProfile, event: PushEvent) {
        guard var profile = try UserRepository.profile(db, of: user) else { throw ServiceError(.notFound, "no such user") }
        try SocialGraphRepository.decorate(db, &profile, viewer: user)
        let own = UserProfile(profile)
        let shown = UserProfile(
            userId: own.userId, displayName: own.displayName, handle: own.handle, bio: own.bio, protected: own.protected, stats: own.stats,
            avatar: own.avatar)
        let users = try MomentRepository.profileAudience(db, of: user)
        let event = ProtocolCodec.encodeEvent(ServerEvent.ProfileUpdated(profile: shown))
        return (own, PushEvent(users: users, bytes: event))
    }
}
