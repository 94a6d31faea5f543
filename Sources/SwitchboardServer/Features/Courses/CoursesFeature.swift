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

/// A community's announcements and course lessons, and each member's progress (docs/protocol.md, "Announcements
/// and courses"). Each handler decodes, asks `CourseService` (the rules, one read or transaction, the events),
/// replies, and delivers the service's events after the commit: `community.notification` for a new post,
/// `community.post.updated` / `.deleted` to the members, `course.progress` to the member's own devices, on every
/// node. Owns the core members' hourly allowance of posts, its part of account deletion (progress) and of the
/// export (`community_posts.json`).
struct CoursesFeature: Feature {
    let service: CourseService

    init(context: ProtocolServices) {
        let limits = context.configuration.communities
        service = CourseService(
            db: context.pool, limits: limits, publications: CourseService.publicationLimiter(limits))
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(CoursesAccountData.deletionSteps)
        registry.add(CoursesAccountData.exportSection)
        let limits = service.limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "courses",
                values: [
                    ("community-post-rate", "\(limits.publicationsPerHour)"),
                    ("max-post-characters", "\(limits.maxPostCharacters)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.CommunityPostsCreate.self) {
            s, p async throws(CommunityError) -> CommunityPostResult in
            let (result, events) = try await service.create(s.caller, p)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.CommunityPostsUpdate.self) {
            s, p async throws(CommunityError) -> CommunityPostResult in
            let (result, events) = try await service.update(s.caller, p)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.CommunityPostsDelete.self) {
            s, p async throws(CommunityError) -> Ops.CommunityPostsDelete.Result in
            s.deliver(try await service.delete(s.caller, postId: p.postId))
            return .init()
        }
        registry.operations.register(Ops.CommunityPostsList.self) { s, p async throws(CommunityError) in
            try await service.list(viewer: s.userId, p)
        }
        registry.operations.register(Ops.CoursesGet.self) { s, p async throws(CommunityError) in
            try await service.course(communityId: p.communityId, viewer: s.userId)
        }
        registry.operations.register(Ops.CoursesComplete.self) {
            s, p async throws(CommunityError) -> Ops.CoursesComplete.Result in
            let (result, events) = try await service.complete(
                s.caller, postId: p.postId, completed: p.completed ?? true)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.CoursesProgress.self) { s, p async throws(CommunityError) in
            try await service.progress(communityId: p.communityId, viewer: s.userId, cursor: p.cursor, limit: p.limit)
        }
    }
}
