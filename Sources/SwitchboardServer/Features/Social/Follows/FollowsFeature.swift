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
import SwitchboardTransport

/// Follows, follow requests, blocks and mutes (docs/protocol.md, "Profiles, handles and follows"). Every write runs
/// in one transaction (`SocialGraphRepository`, counters exact); after its commit the events go to the devices
/// concerned and LIVE hears of the change (`services.social.publish`).
struct FollowsFeature: Feature {
    static let migrations: [Migration] = [.v0011Social]

    init(context: ProtocolServices) {}

    typealias Snapshot = RequestContext<Ops.Follow>.Snapshot

    func register(in registry: inout FeatureRegistry) {
        registry.add([SocialAccountData.follows, SocialAccountData.blocks])
        registry.add(SocialAccountData.exportSection)
        registry.operations.register(Ops.Follow.self) { s, p async throws(ServiceError) -> FollowResult in
            let me = s.userId
            guard p.userId != me else { throw ServiceError(.badRequest, "you cannot follow yourself") }
            try Self.countFollow(s)
            let max = s.services.graph.configuration.maxFollowing
            let (outcome, notification, profile) = try await Self.transaction(s) { db -> (SocialGraphRepository.FollowOutcome, Int64?, Profile?) in
                let outcome = try SocialGraphRepository.follow(db, follower: me, followee: p.userId, maxFollowing: max)
                var notification: Int64?
                switch outcome {
                case .noHandle: throw ServiceError(.handleRequired, "choose a handle first")
                case .noSuchUser: throw ServiceError(.notFound, "no such user")
                case .yourself: throw ServiceError(.badRequest, "you cannot follow yourself")
                case .tooMany: throw ServiceError(.tooMany, "you follow as many accounts as allowed (\(max))")
                case .created(let state):
                    notification = try SocialNotifications.record(
                        db, userId: p.userId, kind: state == .pending ? .followRequest : .follow, actorId: me, postId: nil)
                case .existing: break
                }
                guard var profile = try UserRepository.profile(db, of: p.userId) else { return (outcome, notification, nil) }
                profile.phone = nil
                try SocialGraphRepository.decorate(db, &profile, viewer: me)
                return (outcome, notification, profile)
            }
            guard let profile else { throw ServiceError(.notFound, "no such user") }
            let state: FollowState
            switch outcome {
            case .created(let created):
                state = created
                Self.followChanged(s, follower: me, followee: p.userId, state: created)
                if let notification { s.services.social.publish(.notified(userId: p.userId, notificationId: notification)) }
            case .existing(let existing): state = existing
            default: state = .none
            }
            return FollowResult(state: state.rawValue, profile: UserProfile(profile))
        }
        registry.operations.register(Ops.Unfollow.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            try Self.countFollow(s)
            let former = try await Self.transaction(s) { db in try SocialGraphRepository.unfollow(db, follower: me, followee: p.userId) }
            if former != .none { Self.followChanged(s, follower: me, followee: p.userId, state: .none, wasActive: former == .active) }
            return Empty()
        }
        registry.operations.register(Ops.FollowRequests.self) { s, p async throws(ServiceError) -> FollowRequestsResult in
            let limit = try s.services.graph.configuration.page(p.limit)
            let me = s.userId
            let page = try await Self.read(s) { db in try SocialGraphRepository.requests(db, of: me, before: p.before, limit: limit) }
            return FollowRequestsResult(
                requests: page.requests.map { FollowRequestItem(user: $0.user, createdAt: $0.createdAt, requestId: $0.id) }, nextBefore: page.nextBefore)
        }
        registry.operations.register(Ops.FollowApprove.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            let approved = try await Self.transaction(s) { db in try SocialGraphRepository.approve(db, followee: me, requester: p.userId) }
            guard approved else { throw ServiceError(.notFound, "no pending request from this user") }
            Self.followChanged(s, follower: p.userId, followee: me, state: .active)
            return Empty()
        }
        registry.operations.register(Ops.FollowDeny.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            let former = try await Self.transaction(s) { db in
                try SocialGraphRepository.unfollow(db, follower: p.userId, followee: me, onlyPending: true)
            }
            guard former == .pending else { throw ServiceError(.notFound, "no pending request from this user") }
            Self.followChanged(s, follower: p.userId, followee: me, state: .none)
            return Empty()
        }
        registry.operations.register(Ops.Followers.self) { s, p async throws(ServiceError) -> SocialUserPage in
            try await Self.list(s, p, followers: true)
        }
        registry.operations.register(Ops.Following.self) { s, p async throws(ServiceError) -> SocialUserPage in
            try await Self.list(s, p, followers: false)
        }
        registry.operations.register(Ops.FollowerRemove.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            let former = try await Self.transaction(s) { db in try SocialGraphRepository.unfollow(db, follower: p.userId, followee: me) }
            guard former != .none else { throw ServiceError(.notFound, "this user does not follow you") }
            Self.followChanged(s, follower: p.userId, followee: me, state: .none, wasActive: former == .active)
            return Empty()
        }
        registry.operations.register(Ops.Block.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            guard p.userId != me else { throw ServiceError(.badRequest, "you cannot block yourself") }
            let (added, removed, muting) = try await Self.transaction(s) { db -> (Bool, [RemovedFollow], Bool) in
                guard let (added, removed) = try SocialGraphRepository.block(db, blocker: me, blocked: p.userId) else {
                    throw ServiceError(.notFound, "no such user")
                }
                return (added, removed, try SocialGraphRepository.mutedIds(db, of: me).contains(p.userId))
            }
            for f in removed { Self.followChanged(s, follower: f.followerId, followee: f.followeeId, state: .none, wasActive: f.wasActive) }
            if added { s.services.social.publish(.blockChanged(blockerId: me, blockedId: p.userId, blocked: true)) }
            Self.relationshipChanged(s, p.userId, blocking: true, muting: muting)
            return Empty()
        }
        registry.operations.register(Ops.Unblock.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            guard p.userId != me else { throw ServiceError(.badRequest, "you cannot block yourself") }
            let (removed, muting) = try await Self.transaction(s) { db -> (Bool, Bool) in
                let removed = try SocialGraphRepository.unblock(db, blocker: me, blocked: p.userId)
                let live = try SocialGraphRepository.isLiveUser(db, p.userId)
                guard removed || live else { throw ServiceError(.notFound, "no such user") }
                return (removed, try SocialGraphRepository.mutedIds(db, of: me).contains(p.userId))
            }
            if removed { s.services.social.publish(.blockChanged(blockerId: me, blockedId: p.userId, blocked: false)) }
            Self.relationshipChanged(s, p.userId, blocking: false, muting: muting)
            return Empty()
        }
        registry.operations.register(Ops.Mute.self) { s, p async throws(ServiceError) -> Empty in try await Self.mute(s, p.userId, on: true) }
        registry.operations.register(Ops.Unmute.self) { s, p async throws(ServiceError) -> Empty in try await Self.mute(s, p.userId, on: false) }
        registry.operations.register(Ops.BlocksList.self) { s, p async throws(ServiceError) -> SocialUserPage in
            let limit = try s.services.graph.configuration.page(p.limit)
            let me = s.userId
            let page = try await Self.read(s) { db in try SocialGraphRepository.blockOrMutePage(db, of: me, mutes: false, before: p.before, limit: limit) }
            return SocialUserPage(users: page.users, nextBefore: page.nextBefore)
        }
        registry.operations.register(Ops.MutesList.self) { s, p async throws(ServiceError) -> SocialUserPage in
            let limit = try s.services.graph.configuration.page(p.limit)
            let me = s.userId
            let page = try await Self.read(s) { db in try SocialGraphRepository.blockOrMutePage(db, of: me, mutes: true, before: p.before, limit: limit) }
            return SocialUserPage(users: page.users, nextBefore: page.nextBefore)
        }
    }

    /// `followers`/`following`: of a user you may see (`not_found` otherwise, or when it has no handle and is not
    /// you); a protected account's lists only for itself and its active followers (`forbidden`).
    static func list<O: ProtocolOperation>(
        _ s: RequestContext<O>.Snapshot, _ p: SocialPageParameters, followers: Bool
    ) async throws(ServiceError) -> SocialUserPage {
        let limit = try s.services.graph.configuration.page(p.limit)
        let me = s.userId
        let user = p.userId ?? me
        let page = try await read(s) { db -> (users: [SocialUser], nextBefore: Int64?) in
            if user != me {
                guard try SocialGraphRepository.hasHandle(db, user), !(try SocialGraphRepository.isBlockedEitherWay(db, me, user)) else {
                    throw ServiceError(.notFound, "no such user")
                }
                guard try SocialGraphRepository.canSeePosts(db, viewer: me, author: user) else {
                    throw ServiceError(.forbidden, "this account is protected")
                }
            }
            return try SocialGraphRepository.followPage(db, of: user, followers: followers, before: p.before, limit: limit)
        }
        return SocialUserPage(users: page.users, nextBefore: page.nextBefore)
    }

    static func mute<O: ProtocolOperation>(_ s: RequestContext<O>.Snapshot, _ user: Int64, on: Bool) async throws(ServiceError) -> Empty {
        let me = s.userId
        guard user != me else { throw ServiceError(.badRequest, "you cannot mute yourself") }
        let (changed, blocking) = try await transaction(s) { db -> (Bool, Bool) in
            guard try SocialGraphRepository.isLiveUser(db, user) else { throw ServiceError(.notFound, "no such user") }
            let changed = try SocialGraphRepository.setMute(db, muter: me, muted: user, on: on)
            let blocking = !(try db.execute(
                cached: "SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2", [.int(me), .int(user)]).isEmpty)
            return (changed, blocking)
        }
        if changed { s.services.social.publish(.muteChanged(muterId: me, mutedId: user, muted: on)) }
        relationshipChanged(s, user, blocking: blocking, muting: on)
        return Empty()
    }

    /// After a commit: `follow.changed` to the follower's devices, and LIVE's indexes when an active follow began or
    /// ended.
    static func followChanged<O: ProtocolOperation>(
        _ s: RequestContext<O>.Snapshot, follower: Int64, followee: Int64, state: FollowState, wasActive: Bool = false
    ) {
        s.services.deliveries.push(
            PushEvent(
                users: [follower],
                bytes: ProtocolCodec.encodeEvent(
                    SocialGraphEvents.FollowChanged(userId: followee, state: state.rawValue))))
        if state == .active {
            s.services.social.publish(.followChanged(followerId: follower, followeeId: followee, active: true))
        } else if wasActive {
            s.services.social.publish(.followChanged(followerId: follower, followeeId: followee, active: false))
        }
    }

    /// After a commit: `relationship.changed` to the acting user's devices.
    static func relationshipChanged<O: ProtocolOperation>(_ s: RequestContext<O>.Snapshot, _ user: Int64, blocking: Bool, muting: Bool) {
        s.services.deliveries.push(
            PushEvent(
                users: [s.userId],
                bytes: ProtocolCodec.encodeEvent(
                    SocialGraphEvents.RelationshipChanged(userId: user, blocking: blocking, muting: muting))))
    }

    /// Counts a follow or unfollow against the user's allowance, or `rate_limited` with `retry_after_ms`.
    static func countFollow<O: ProtocolOperation>(_ s: RequestContext<O>.Snapshot) throws(ServiceError) {
        let share = s.services.cluster == nil ? 1 : s.services.registry.nodeCount(ofUser: s.userId)
        if let retryAfter = s.services.graph.followLimiter.attempt(s.userId, now: EventLoop.now(), sharedBy: share).retryAfterMilliseconds {
            throw ServiceError(.rateLimited, "too many follows and unfollows; try again later", extra: ["retry_after_ms": retryAfter])
        }
    }

    static func transaction<O: ProtocolOperation, T: Sendable>(
        _ s: RequestContext<O>.Snapshot, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(ServiceError) -> T {
        do { return try await s.services.accounts.pool.transaction(body) } catch { throw ServiceError.from(error) }
    }

    static func read<O: ProtocolOperation, T: Sendable>(
        _ s: RequestContext<O>.Snapshot, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(ServiceError) -> T {
        do { return try await s.services.accounts.pool.withConnection(body) } catch { throw ServiceError.from(error) }
    }
}
