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

/// Follows, follow requests, blocks and mutes (docs/protocol.md, "Profiles, handles and follows"). Each handler
/// decodes, asks `FollowService` (one transaction, counters exact; the committed change handed to live pages),
/// delivers its events (`follow.changed`, `relationship.changed`) and replies. Owns the social migration, its
/// part of account deletion (follows, blocks) and the social export section.
struct FollowsFeature: Feature {
    static let migrations: [Migration] = [.v0011Social]

    let service: FollowService

    init(context: ProtocolServices) {
        service = FollowService(db: context.pool, limits: context.configuration.socialGraph, live: context.social)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add([SocialAccountData.follows, SocialAccountData.blocks])
        registry.add(SocialAccountData.exportSection)
        let limits = service.limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "follows",
                values: [
                    ("follow-burst", "\(limits.followBurst)"), ("follow-refill", "\(limits.followRefillSeconds)"),
                    ("max-following", "\(limits.maxFollowing)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.Follow.self) { s, p async throws(FollowError) -> FollowResult in
            let (result, events) = try await service.follow(s.caller, userId: p.userId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.Unfollow.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.unfollow(s.caller, userId: p.userId))
            return Empty()
        }
        registry.operations.register(Ops.FollowRequests.self) { s, p async throws(FollowError) in
            try await service.requests(user: s.userId, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.FollowApprove.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.approve(s.caller, requester: p.userId))
            return Empty()
        }
        registry.operations.register(Ops.FollowDeny.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.deny(s.caller, requester: p.userId))
            return Empty()
        }
        registry.operations.register(Ops.Followers.self) { s, p async throws(FollowError) -> SocialUserPage in
            try await service.list(
                viewer: s.userId, userId: p.userId, before: p.before, limit: p.limit, followers: true)
        }
        registry.operations.register(Ops.Following.self) { s, p async throws(FollowError) -> SocialUserPage in
            try await service.list(
                viewer: s.userId, userId: p.userId, before: p.before, limit: p.limit, followers: false)
        }
        registry.operations.register(Ops.FollowerRemove.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.removeFollower(s.caller, userId: p.userId))
            return Empty()
        }
        registry.operations.register(Ops.Block.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.block(s.caller, userId: p.userId))
            return Empty()
        }
        registry.operations.register(Ops.Unblock.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.unblock(s.caller, userId: p.userId))
            return Empty()
        }
        registry.operations.register(Ops.Mute.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.setMute(s.caller, userId: p.userId, on: true))
            return Empty()
        }
        registry.operations.register(Ops.Unmute.self) { s, p async throws(FollowError) -> Empty in
            s.deliver(try await service.setMute(s.caller, userId: p.userId, on: false))
            return Empty()
        }
        registry.operations.register(Ops.BlocksList.self) { s, p async throws(FollowError) -> SocialUserPage in
            try await service.blocksOrMutes(user: s.userId, mutes: false, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.MutesList.self) { s, p async throws(FollowError) -> SocialUserPage in
            try await service.blocksOrMutes(user: s.userId, mutes: true, before: p.before, limit: p.limit)
        }
    }

    /// After a commit elsewhere (`profile.update` turning `protected` off approves the pending requests):
    /// `follow.changed` to the follower's devices, and live pages' indexes when an active follow began or ended.
    static func followChanged<O: ProtocolOperation>(
        _ s: RequestContext<O>.Snapshot, follower: Int64, followee: Int64, state: FollowState, wasActive: Bool = false
    ) {
        s.deliver([
            FollowService.followChanged(
                follower: follower, followee: followee, state: state, wasActive: wasActive, live: s.services.social)
        ])
    }
}
