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

/// Communities (`docs/protocol.md`, "Communities"): the list, membership, core members, the notifications and
/// unread markers. Each handler decodes, asks `CommunityService` (the rules, one read or transaction, the events),
/// replies, and delivers the service's events after the commit (`community.updated`, `.archived`, `.joined`,
/// `.left`, `.role`, `.read`) to every device of their users on every node. Events and courses publish their
/// notifications with `CommunityNotifications.publish` inside their own transactions and tell the members with
/// `CommunityService.notificationEvent`. Owns its part of account deletion and export (memberships,
/// `communities.json`); the limits it logs are the pages' and the descriptions' (events and courses log theirs).
struct CommunitiesFeature: Feature {
    static let migrations: [Migration] = [.v0009Communities]

    let service: CommunityService

    init(context: ProtocolServices) {
        service = CommunityService(db: context.pool, limits: context.configuration.communities)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(CommunitiesAccountData.deletionSteps)
        registry.add(CommunitiesAccountData.exportSection)
        let limits = service.limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "communities",
                values: [
                    ("community-page-max", "\(limits.maxPage)"),
                    ("community-people-page-max", "\(limits.maxPeoplePage)"),
                    ("max-description-characters", "\(limits.maxDescriptionCharacters)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.CommunitiesList.self) { s, p async throws(CommunityError) in
            try await service.list(viewer: s.userId, limit: p.limit, cursor: p.cursor)
        }
        registry.operations.register(Ops.CommunitiesGet.self) { s, p async throws(CommunityError) in
            try await service.community(p.communityId, viewer: s.userId)
        }
        registry.operations.register(Ops.CommunitiesCreate.self) { s, p async throws(CommunityError) in
            try await service.create(
                s.caller, name: p.name, description: p.description, category: p.category, picture: p.picture)
        }
        registry.operations.register(Ops.CommunitiesUpdate.self) {
            s, p async throws(CommunityError) -> CommunityResult in
            let (result, events) = try await service.update(
                s.caller, communityId: p.communityId, name: p.name, description: p.description, category: p.category,
                picture: p.picture)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.CommunitiesArchive.self) { s, p async throws(CommunityError) -> Empty in
            s.deliver(try await service.archive(s.caller, communityId: p.communityId))
            return Empty()
        }
        registry.operations.register(Ops.CommunitiesJoin.self) { s, p async throws(CommunityError) -> CommunityResult in
            let (result, events) = try await service.join(s.caller, communityId: p.communityId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.CommunitiesQuit.self) {
            s, p async throws(CommunityError) -> Ops.CommunitiesQuit.Result in
            let (result, events) = try await service.quit(s.caller, communityId: p.communityId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.CommunitiesMembers.self) { s, p async throws(CommunityError) in
            try await service.members(communityId: p.communityId, viewer: s.userId, limit: p.limit, cursor: p.cursor)
        }
        registry.operations.register(Ops.CommunitiesCore.self) { s, p async throws(CommunityError) -> Empty in
            s.deliver(try await service.setCore(s.caller, communityId: p.communityId, userId: p.userId, core: p.core))
            return Empty()
        }
        registry.operations.register(Ops.CommunitiesUnread.self) { s, _ async throws(CommunityError) in
            try await service.unread(viewer: s.userId)
        }
        registry.operations.register(Ops.CommunitiesNotifications.self) { s, p async throws(CommunityError) in
            try await service.notifications(
                communityId: p.communityId, viewer: s.userId, beforeSeq: p.beforeSeq, limit: p.limit)
        }
        registry.operations.register(Ops.CommunitiesRead.self) {
            s, p async throws(CommunityError) -> Ops.CommunitiesRead.Result in
            let (result, events) = try await service.read(s.caller, communityId: p.communityId, seq: p.seq)
            s.deliver(events)
            return result
        }
    }
}
