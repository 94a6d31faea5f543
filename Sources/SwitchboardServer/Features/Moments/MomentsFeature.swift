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

/// Moments: `moments.create`, `.feed`, `.get`, `.delete`, `.like`, `.unlike`, `.likers` (docs/protocol.md,
/// "Moments"). Each handler decodes, asks `MomentService` (one transaction, the rules, the events), replies, and
/// delivers the service's events after the commit (`moment.created`, `moment.deleted`, `moment.liked` to the
/// owner's audience on every node: the session registry is a replica and the outbox forwards over the bus). Owns its
/// part of account deletion (likes given, moments) and of the export (`moments.json`, `photos/<id>.jpg`).
struct MomentsFeature: Feature {
    let service: MomentService

    init(context: ProtocolServices) {
        service = MomentService(
            db: context.pool, limits: context.configuration.moments, posting: context.posts.posts,
            liking: context.posts.likes, clientIdRule: context.configuration.messaging.clientIdRule)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(MomentsAccountData.deletionSteps)
        registry.add(MomentsAccountData.exportSection)
        let limits = service.limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "moments",
                values: [
                    ("moment-max-photos", "\(limits.maxPhotos)"), ("moment-caption-max", "\(limits.captionMax)"),
                    ("moments-page-max", "\(limits.pageMax)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.MomentsCreate.self) { s, p async throws(MomentError) -> MomentResult in
            let (result, events) = try await service.create(
                s.caller, photoIds: p.photoIds, caption: p.caption, clientId: p.clientId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.MomentsFeed.self) { s, p async throws(MomentError) in
            try await service.feed(viewer: s.userId, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.MomentsGet.self) { s, p async throws(MomentError) in
            try await service.moment(p.momentId, viewer: s.userId)
        }
        registry.operations.register(Ops.MomentsDelete.self) { s, p async throws(MomentError) -> Empty in
            s.deliver(try await service.delete(s.caller, momentId: p.momentId))
            return Empty()
        }
        registry.operations.register(Ops.MomentsLike.self) { s, p async throws(MomentError) -> MomentLikeResult in
            let (result, events) = try await service.setLike(s.caller, momentId: p.momentId, liked: true)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.MomentsUnlike.self) { s, p async throws(MomentError) -> MomentLikeResult in
            let (result, events) = try await service.setLike(s.caller, momentId: p.momentId, liked: false)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.MomentsLikers.self) { s, p async throws(MomentError) in
            try await service.likers(momentId: p.momentId, viewer: s.userId, before: p.before, limit: p.limit)
        }
    }
}
