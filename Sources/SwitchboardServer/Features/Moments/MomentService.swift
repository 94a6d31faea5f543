//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Moments' use cases (docs/protocol.md, "Moments"): each one transaction on the database seam, the rules checked
/// first, the events to tell returned with the result (never pushed from here). A moment is seen by its owner and
/// the owner's friends while neither blocked the other (`MomentRepository.visible`); everyone else gets `notFound`.
/// Creating counts against the caller's post bucket, liking against the like bucket (the buckets the posts feature
/// shares). Off the loops only.
final class MomentService: Sendable {
    let db: any Database
    let limits: MomentConfiguration
    /// `moments.create` per user (the post bucket).
    let posting: SharedRateLimiter<Int64>
    /// `moments.like` and `moments.unlike` per user (the like bucket).
    let liking: SharedRateLimiter<Int64>
    /// The rule of `client_id` strings (shared with messages).
    let clientIdRule: TextRule
    /// Monotonic nanoseconds for the rate limiters (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(
        db: any Database, limits: MomentConfiguration, posting: SharedRateLimiter<Int64>,
        liking: SharedRateLimiter<Int64>, clientIdRule: TextRule, clock: any EngineClock = SystemClock()
    ) {
        self.db = db
        self.limits = limits
        self.posting = posting
        self.liking = liking
        self.clientIdRule = clientIdRule
        self.clock = clock
    }

    /// `moments.create`: a moment of 1 to `maxPhotos` of the caller's own photos with an optional caption; a resend
    /// with the same `client_id` answers the stored moment. Its owner's friends hear `moment.created`.
    func create(
        _ caller: Caller, photoIds: [Int64], caption: String?, clientId: String?
    ) async throws(MomentError) -> (MomentResult, [DomainEvent]) {
        guard (1...limits.maxPhotos).contains(photoIds.count) else { throw .photoCount(max: limits.maxPhotos) }
        let caption = (caption ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard caption.count <= limits.captionMax else { throw .captionTooLong(max: limits.captionMax) }
        if let clientId, let problem = StoredText.problem(clientId, clientIdRule) { throw .invalidText(problem) }
        try count(caller, against: posting, "posts")
        let me = caller.userId
        let (moment, created, audience) = try await db.write(as: MomentError.self) { db in
            let (id, created) = try MomentRepository.create(
                db, owner: me, photoIds: photoIds, caption: caption, clientId: clientId)
            guard let moment = try MomentRepository.moments(db, ids: [id], viewer: me).first else {
                throw MomentError.notFound
            }
            return (moment, created, created ? try MomentRepository.audience(db, of: me) : [])
        }
        guard created else { return (MomentResult(moment: moment), []) }
        var shown = moment
        shown.liked = false
        return (MomentResult(moment: moment), [DomainEvent(to: audience, MomentEvents.Created(moment: shown))])
    }

    /// `moments.feed`: the moments the viewer may see, newest first, in pages.
    func feed(viewer: Int64, before: Int64?, limit: Int?) async throws(MomentError) -> Ops.MomentsFeed.Result {
        let limit = try page(limit)
        return try await db.read(as: MomentError.self) { db in
            let ids = try MomentRepository.feed(db, viewer: viewer, before: before, limit: limit + 1)
            let page = Array(ids.prefix(limit))
            return .init(
                moments: try MomentRepository.moments(db, ids: page, viewer: viewer),
                nextBefore: ids.count > limit ? page.last : nil)
        }
    }

    /// `moments.get`: one moment the viewer may see.
    func moment(_ momentId: Int64, viewer: Int64) async throws(MomentError) -> MomentResult {
        try await db.read(as: MomentError.self) { db in
            guard try MomentRepository.visibleOwner(db, id: momentId, viewer: viewer) != nil,
                let moment = try MomentRepository.moments(db, ids: [momentId], viewer: viewer).first
            else { throw MomentError.notFound }
            return MomentResult(moment: moment)
        }
    }

    /// `moments.delete`: the caller's own moment, deleted for real; its audience hears `moment.deleted`.
    func delete(_ caller: Caller, momentId: Int64) async throws(MomentError) -> [DomainEvent] {
        let me = caller.userId
        let audience = try await db.write(as: MomentError.self) { db in
            try MomentRepository.delete(db, owner: me, momentId: momentId)
            return try MomentRepository.audience(db, of: me)
        }
        return [DomainEvent(to: audience, MomentEvents.Deleted(momentId: momentId, ownerId: me))]
    }

    /// `moments.like` (`liked`) or `moments.unlike`: the exact count after the change; when it changed anything, the
    /// moment's audience and the caller hear `moment.liked`.
    func setLike(
        _ caller: Caller, momentId: Int64, liked: Bool
    ) async throws(MomentError) -> (MomentLikeResult, [DomainEvent]) {
        try count(caller, against: liking, "likes")
        let me = caller.userId
        let (result, audience, user) = try await db.write(as: MomentError.self) { db in
            let r = try MomentRepository.setLike(db, user: me, momentId: momentId, liked: liked)
            guard r.changed else { return (r, [Int64](), SocialUser?.none) }
            return (
                r, try MomentRepository.audience(db, of: r.ownerId) + [me],
                try SocialGraphRepository.socialUsers(db, ids: [me])[me]
            )
        }
        let reply = MomentLikeResult(momentId: momentId, likeCount: result.likeCount, liked: liked)
        guard result.changed, let user else { return (reply, []) }
        let event = MomentEvents.Liked(momentId: momentId, likeCount: result.likeCount, liked: liked, user: user)
        return (reply, [DomainEvent(to: Array(Set(audience)), event)])
    }

    /// `moments.likers`: who liked a moment the viewer may see, newest like first, in pages of at most 100.
    func likers(
        momentId: Int64, viewer: Int64, before: String?, limit: Int?
    ) async throws(MomentError) -> Ops.MomentsLikers.Result {
        let limit = limit ?? 50
        guard (1...100).contains(limit) else { throw .pageLimit(max: 100) }
        var cursor: (micros: Int64, userId: Int64)? = nil
        if let before {
            guard let parsed = MomentRepository.likersCursor(before) else { throw .badLikersCursor }
            cursor = parsed
        }
        let start = cursor
        return try await db.read(as: MomentError.self) { db in
            guard try MomentRepository.visibleOwner(db, id: momentId, viewer: viewer) != nil else {
                throw MomentError.notFound
            }
            let rows = try MomentRepository.likers(
                db, momentId: momentId, viewer: viewer, before: start, limit: limit + 1)
            let page = rows.prefix(limit)
            return .init(likers: page.map(\.user), nextBefore: rows.count > limit ? page.last?.cursor : nil)
        }
    }

    /// A feed page size: `limit` or the default (10, or `pageMax` if smaller), refused outside 1...`pageMax`.
    private func page(_ limit: Int?) throws(MomentError) -> Int {
        let limit = limit ?? min(10, limits.pageMax)
        guard (1...limits.pageMax).contains(limit) else { throw .pageLimit(max: limits.pageMax) }
        return limit
    }

    /// Takes one token of the caller's `bucket`, or refuses with its retry time.
    private func count(_ caller: Caller, against limiter: SharedRateLimiter<Int64>, _ bucket: String)
        throws(MomentError)
    {
        let attempt = limiter.attempt(caller.userId, now: clock.now(), sharedBy: caller.limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds {
            throw .rateLimited(bucket: bucket, retryAfterMilliseconds: retryAfter)
        }
    }
}
