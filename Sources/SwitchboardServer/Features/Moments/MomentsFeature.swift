//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol
import SwitchboardStore

/// Moments: `moments.create`, `.feed`, `.get`, `.delete`, `.like`, `.unlike`, `.likers` (docs/protocol.md,
/// "Moments"). A moment is seen by its owner and the owner's friends while neither blocked the other
/// (`MomentRepository.visible`); everyone else gets `not_found`. Each write is one transaction in
/// `MomentRepository`; after its commit the event (`moment.created`, `moment.deleted`, `moment.liked`) goes to
/// the owner's audience through `deliveries` (every node of a cluster: the session registry is a replica and the
/// outbox forwards over the bus). Limits: `MomentConfiguration`; creation counts against the post bucket, likes
/// against the like bucket.
struct MomentsFeature: FeatureModule {
    func register(in router: inout OperationRouter) {
        router.register(Ops.MomentsCreate.self) { s, p async throws(ServiceError) -> MomentResult in
            let limits = s.services.moments
            guard (1...limits.maxPhotos).contains(p.photoIds.count) else {
                throw ServiceError(.badRequest, "photo_ids must hold 1 to \(limits.maxPhotos) photos")
            }
            let caption = (p.caption ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard caption.count <= limits.captionMax else { throw ServiceError(.badRequest, "caption is longer than \(limits.captionMax) characters") }
            if let clientId = p.clientId, let problem = StoredText.problem(clientId, s.services.messages.configuration.clientIdRule) {
                throw ServiceError(.badRequest, problem)
            }
            try s.count(s.services.posts.posts, "posts")
            let me = s.userId
            let (moment, created, audience) = try await ModerationFeature.database(s, transaction: true) { db in
                let (id, created) = try MomentRepository.create(db, owner: me, photoIds: p.photoIds, caption: caption, clientId: p.clientId)
                guard let moment = try MomentRepository.moments(db, ids: [id], viewer: me).first else { throw Self.noSuchMoment }
                return (moment, created, created ? try MomentRepository.audience(db, of: me) : [])
            }
            if created {
                var shown = moment
                shown.liked = false
                s.services.deliveries.push(
                    PushEvent(users: audience, bytes: ProtocolCodec.encodeEvent(MomentEvents.Created(moment: shown))))
            }
            return MomentResult(moment: moment)
        }
        router.register(Ops.MomentsFeed.self) { s, p async throws(ServiceError) -> Ops.MomentsFeed.Result in
            let limit = try s.services.moments.page(p.limit)
            let me = s.userId
            return try await ModerationFeature.database(s) { db in
                let ids = try MomentRepository.feed(db, viewer: me, before: p.before, limit: limit + 1)
                let page = Array(ids.prefix(limit))
                return .init(moments: try MomentRepository.moments(db, ids: page, viewer: me), nextBefore: ids.count > limit ? page.last : nil)
            }
        }
        router.register(Ops.MomentsGet.self) { s, p async throws(ServiceError) -> MomentResult in
            let me = s.userId
            return try await ModerationFeature.database(s) { db in
                guard try MomentRepository.visibleOwner(db, id: p.momentId, viewer: me) != nil,
                    let moment = try MomentRepository.moments(db, ids: [p.momentId], viewer: me).first
                else { throw Self.noSuchMoment }
                return MomentResult(moment: moment)
            }
        }
        router.register(Ops.MomentsDelete.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            let audience = try await ModerationFeature.database(s, transaction: true) { db in
                try MomentRepository.delete(db, owner: me, momentId: p.momentId)
                return try MomentRepository.audience(db, of: me)
            }
            s.services.deliveries.push(
                PushEvent(
                    users: audience,
                    bytes: ProtocolCodec.encodeEvent(MomentEvents.Deleted(momentId: p.momentId, ownerId: me))))
            return Empty()
        }
        router.register(Ops.MomentsLike.self) { s, p async throws(ServiceError) -> MomentLikeResult in
            try await Self.like(s, p.momentId, true)
        }
        router.register(Ops.MomentsUnlike.self) { s, p async throws(ServiceError) -> MomentLikeResult in
            try await Self.like(s, p.momentId, false)
        }
        router.register(Ops.MomentsLikers.self) { s, p async throws(ServiceError) -> Ops.MomentsLikers.Result in
            let limit = try pageSize(p.limit, default: 50, max: 100)
            var cursor: (micros: Int64, userId: Int64)? = nil
            if let before = p.before {
                guard let parsed = MomentRepository.likersCursor(before) else { throw ServiceError(.badRequest, "before is not a cursor of moments.likers") }
                cursor = parsed
            }
            let me = s.userId
            let start = cursor
            return try await ModerationFeature.database(s) { db in
                guard try MomentRepository.visibleOwner(db, id: p.momentId, viewer: me) != nil else { throw Self.noSuchMoment }
                let rows = try MomentRepository.likers(db, momentId: p.momentId, viewer: me, before: start, limit: limit + 1)
                let page = rows.prefix(limit)
                return .init(likers: page.map(\.user), nextBefore: rows.count > limit ? page.last?.cursor : nil)
            }
        }
    }

    static let noSuchMoment = ServiceError(.notFound, "no such moment")

    static func like<Op>(_ s: RequestContext<Op>.Snapshot, _ momentId: Int64, _ liked: Bool) async throws(ServiceError) -> MomentLikeResult {
        try s.count(s.services.posts.likes, "likes")
        let me = s.userId
        let (result, audience, user) = try await ModerationFeature.database(s, transaction: true) { db in
            let r = try MomentRepository.setLike(db, user: me, momentId: momentId, liked: liked)
            guard r.changed else { return (r, [Int64](), SocialUser?.none) }
            return (r, try MomentRepository.audience(db, of: r.ownerId) + [me], try SocialGraphRepository.socialUsers(db, ids: [me])[me])
        }
        if result.changed, let user {
            let event = MomentEvents.Liked(momentId: momentId, likeCount: result.likeCount, liked: liked, user: user)
            s.services.deliveries.push(PushEvent(users: Array(Set(audience)), bytes: ProtocolCodec.encodeEvent(event)))
        }
        return MomentLikeResult(momentId: momentId, likeCount: result.likeCount, liked: liked)
    }
}
