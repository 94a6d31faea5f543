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

/// Follows', follow requests', blocks' and mutes' use cases (docs/protocol.md, "Profiles, handles and follows";
/// docs/social.md, "Visibility and blocks"). Every write is one transaction (`SocialGraphRepository`: both users'
/// rows locked in id order, counters exact); after its commit the change goes to live pages through `live` (home
/// indexes, profile counts, notifications) and the service returns the events for the devices concerned:
/// `follow.changed` to the follower, `relationship.changed` to the acting user. Follows and unfollows count
/// against the caller's follow bucket. Off the loops only.
final class FollowService: Sendable {
    let db: any Database
    let limits: SocialGraphConfiguration
    /// `follow` and `unfollow` per user.
    let following: SharedRateLimiter<Int64>
    /// Live pages (`SocialLive`), told of each committed change.
    let live: any SocialPublisher
    /// Monotonic nanoseconds for the rate limiter (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(
        db: any Database, limits: SocialGraphConfiguration, live: any SocialPublisher,
        clock: any EngineClock = SystemClock()
    ) {
        self.db = db
        self.limits = limits
        following = SharedRateLimiter(
            capacity: Double(max(1, limits.followBurst)), refillPerSecond: 1 / max(0.001, limits.followRefillSeconds))
        self.live = live
        self.clock = clock
    }

    // MARK: Follows

    /// `follow`: follows `userId` (a request to a protected account), or answers the existing follow; the followee
    /// is notified of a new one. Needs a handle of one's own.
    func follow(_ caller: Caller, userId: Int64) async throws(FollowError) -> (FollowResult, [DomainEvent]) {
        let me = caller.userId
        guard userId != me else { throw .followYourself }
        try countFollow(caller)
        let max = limits.maxFollowing
        let (outcome, notification, profile) = try await db.write(as: FollowError.self) {
            db -> (SocialGraphRepository.FollowOutcome, Int64?, Profile?) in
            let outcome = try SocialGraphRepository.follow(db, follower: me, followee: userId, maxFollowing: max)
            var notification: Int64?
            switch outcome {
            case .noHandle: throw FollowError.handleRequired
            case .noSuchUser: throw FollowError.noSuchUser
            case .yourself: throw FollowError.followYourself
            case .tooMany: throw FollowError.tooManyFollowing(max: max)
            case .created(let state):
                notification = try SocialNotifications.record(
                    db, userId: userId, kind: state == .pending ? .followRequest : .follow, actorId: me, postId: nil)
            case .existing: break
            }
            guard var profile = try UserRepository.profile(db, of: userId) else { return (outcome, notification, nil) }
            profile.phone = nil
            try SocialGraphRepository.decorate(db, &profile, viewer: me)
            return (outcome, notification, profile)
        }
        guard let profile else { throw .noSuchUser }
        let state: FollowState
        var events: [DomainEvent] = []
        switch outcome {
        case .created(let created):
            state = created
            events.append(followChanged(follower: me, followee: userId, state: created))
            if let notification { live.publish(.notified(userId: userId, notificationId: notification)) }
        case .existing(let existing): state = existing
        default: state = .none
        }
        return (FollowResult(state: state.rawValue, profile: UserProfile(profile)), events)
    }

    /// `unfollow`: ends the caller's follow or request of `userId`, if any.
    func unfollow(_ caller: Caller, userId: Int64) async throws(FollowError) -> [DomainEvent] {
        let me = caller.userId
        try countFollow(caller)
        let former = try await db.write(as: FollowError.self) { db in
            try SocialGraphRepository.unfollow(db, follower: me, followee: userId)
        }
        guard former != .none else { return [] }
        return [followChanged(follower: me, followee: userId, state: .none, wasActive: former == .active)]
    }

    /// `follow.requests`: the requests to the caller's protected account, newest first.
    func requests(user: Int64, before: Int64?, limit: Int?) async throws(FollowError) -> FollowRequestsResult {
        let limit = try page(limit)
        let page = try await db.read(as: FollowError.self) { db in
            try SocialGraphRepository.requests(db, of: user, before: before, limit: limit)
        }
        return FollowRequestsResult(
            requests: page.requests.map { FollowRequestItem(user: $0.user, createdAt: $0.createdAt, requestId: $0.id) },
            nextBefore: page.nextBefore)
    }

    /// `follow.approve`: `requester`'s pending request becomes an active follow.
    func approve(_ caller: Caller, requester: Int64) async throws(FollowError) -> [DomainEvent] {
        let me = caller.userId
        let approved = try await db.write(as: FollowError.self) { db in
            try SocialGraphRepository.approve(db, followee: me, requester: requester)
        }
        guard approved else { throw .noPendingRequest }
        return [followChanged(follower: requester, followee: me, state: .active)]
    }

    /// `follow.deny`: removes `requester`'s pending request.
    func deny(_ caller: Caller, requester: Int64) async throws(FollowError) -> [DomainEvent] {
        let me = caller.userId
        let former = try await db.write(as: FollowError.self) { db in
            try SocialGraphRepository.unfollow(db, follower: requester, followee: me, onlyPending: true)
        }
        guard former == .pending else { throw .noPendingRequest }
        return [followChanged(follower: requester, followee: me, state: .none)]
    }

    /// `follower.remove`: ends `userId`'s follow (or request) of the caller.
    func removeFollower(_ caller: Caller, userId: Int64) async throws(FollowError) -> [DomainEvent] {
        let me = caller.userId
        let former = try await db.write(as: FollowError.self) { db in
            try SocialGraphRepository.unfollow(db, follower: userId, followee: me)
        }
        guard former != .none else { throw .notAFollower }
        return [followChanged(follower: userId, followee: me, state: .none, wasActive: former == .active)]
    }

    /// `followers` (`followers`) or `following`: of a user the viewer may see (`noSuchUser` otherwise, or when it
    /// has no handle and is not the viewer); a protected account's lists only for itself and its active followers
    /// (`protectedAccount`).
    func list(
        viewer: Int64, userId: Int64?, before: Int64?, limit: Int?, followers: Bool
    ) async throws(FollowError) -> SocialUserPage {
        let limit = try page(limit)
        let user = userId ?? viewer
        let page = try await db.read(as: FollowError.self) { db -> (users: [SocialUser], nextBefore: Int64?) in
            if user != viewer {
                guard try SocialGraphRepository.hasHandle(db, user),
                    !(try SocialGraphRepository.isBlockedEitherWay(db, viewer, user))
                else { throw FollowError.noSuchUser }
                guard try SocialGraphRepository.canSeePosts(db, viewer: viewer, author: user) else {
                    throw FollowError.protectedAccount
                }
            }
            return try SocialGraphRepository.followPage(
                db, of: user, followers: followers, before: before, limit: limit)
        }
        return SocialUserPage(users: page.users, nextBefore: page.nextBefore)
    }

    // MARK: Blocks and mutes

    /// `block`: blocks `userId` (follows both ways end in the same transaction); the caller's devices hear
    /// `relationship.changed`, each ended follow's follower `follow.changed`.
    func block(_ caller: Caller, userId: Int64) async throws(FollowError) -> [DomainEvent] {
        let me = caller.userId
        guard userId != me else { throw .blockYourself }
        let (added, removed, muting) = try await db.write(as: FollowError.self) { db -> (Bool, [RemovedFollow], Bool) in
            guard let (added, removed) = try SocialGraphRepository.block(db, blocker: me, blocked: userId) else {
                throw FollowError.noSuchUser
            }
            return (added, removed, try SocialGraphRepository.mutedIds(db, of: me).contains(userId))
        }
        var events = removed.map { f in
            followChanged(follower: f.followerId, followee: f.followeeId, state: .none, wasActive: f.wasActive)
        }
        if added { live.publish(.blockChanged(blockerId: me, blockedId: userId, blocked: true)) }
        events.append(relationshipChanged(caller, userId, blocking: true, muting: muting))
        return events
    }

    /// `unblock`: lifts the caller's block of `userId` (a live user, or one it had blocked).
    func unblock(_ caller: Caller, userId: Int64) async throws(FollowError) -> [DomainEvent] {
        let me = caller.userId
        guard userId != me else { throw .blockYourself }
        let (removed, muting) = try await db.write(as: FollowError.self) { db -> (Bool, Bool) in
            let removed = try SocialGraphRepository.unblock(db, blocker: me, blocked: userId)
            let live = try SocialGraphRepository.isLiveUser(db, userId)
            guard removed || live else { throw FollowError.noSuchUser }
            return (removed, try SocialGraphRepository.mutedIds(db, of: me).contains(userId))
        }
        if removed { live.publish(.blockChanged(blockerId: me, blockedId: userId, blocked: false)) }
        return [relationshipChanged(caller, userId, blocking: false, muting: muting)]
    }

    /// `mute` (`on`) or `unmute`: silent and one-way; the caller's devices hear `relationship.changed`.
    func setMute(_ caller: Caller, userId: Int64, on: Bool) async throws(FollowError) -> [DomainEvent] {
        let me = caller.userId
        guard userId != me else { throw .muteYourself }
        let (changed, blocking) = try await db.write(as: FollowError.self) { db -> (Bool, Bool) in
            guard try SocialGraphRepository.isLiveUser(db, userId) else { throw FollowError.noSuchUser }
            let changed = try SocialGraphRepository.setMute(db, muter: me, muted: userId, on: on)
            return (changed, try SocialGraphRepository.isBlocking(db, blocker: me, blocked: userId))
        }
        if changed { live.publish(.muteChanged(muterId: me, mutedId: userId, muted: on)) }
        return [relationshipChanged(caller, userId, blocking: blocking, muting: on)]
    }

    /// `blocks.list` (`mutes` false) or `mutes.list`: the caller's, newest first.
    func blocksOrMutes(
        user: Int64, mutes: Bool, before: Int64?, limit: Int?
    ) async throws(FollowError) -> SocialUserPage {
        let limit = try page(limit)
        let page = try await db.read(as: FollowError.self) { db in
            try SocialGraphRepository.blockOrMutePage(db, of: user, mutes: mutes, before: before, limit: limit)
        }
        return SocialUserPage(users: page.users, nextBefore: page.nextBefore)
    }

    // MARK: After a commit

    /// After a commit: `follow.changed` for the follower's devices (returned), and live pages' indexes told when an
    /// active follow began or ended.
    func followChanged(
        follower: Int64, followee: Int64, state: FollowState, wasActive: Bool = false
    ) -> DomainEvent {
        Self.followChanged(follower: follower, followee: followee, state: state, wasActive: wasActive, live: live)
    }

    /// `followChanged` for a caller without a service (`profile.update` approving every pending request).
    static func followChanged(
        follower: Int64, followee: Int64, state: FollowState, wasActive: Bool = false, live: any SocialPublisher
    ) -> DomainEvent {
        if state == .active {
            live.publish(.followChanged(followerId: follower, followeeId: followee, active: true))
        } else if wasActive {
            live.publish(.followChanged(followerId: follower, followeeId: followee, active: false))
        }
        return DomainEvent(to: [follower], SocialGraphEvents.FollowChanged(userId: followee, state: state.rawValue))
    }

    /// `relationship.changed` for the acting user's devices.
    private func relationshipChanged(_ caller: Caller, _ user: Int64, blocking: Bool, muting: Bool) -> DomainEvent {
        DomainEvent(
            to: [caller.userId],
            SocialGraphEvents.RelationshipChanged(userId: user, blocking: blocking, muting: muting))
    }

    /// A list's page size: `limit` or the default, refused outside 1...`maxPage`.
    private func page(_ limit: Int?) throws(FollowError) -> Int {
        let limit = limit ?? limits.defaultPage
        guard (1...limits.maxPage).contains(limit) else { throw .pageLimit(max: limits.maxPage) }
        return limit
    }

    /// Counts a follow or unfollow against the caller's allowance, or refuses with its retry time.
    private func countFollow(_ caller: Caller) throws(FollowError) {
        let attempt = following.attempt(caller.userId, now: clock.now(), sharedBy: caller.limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds { throw .rateLimited(retryAfterMilliseconds: retryAfter) }
    }
}
