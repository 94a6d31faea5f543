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

/// A community's announcements and course lessons, and each member's progress (docs/protocol.md, "Announcements
/// and courses").
///
/// Core members and administrators post; members and administrators read; members mark lessons completed. A new
/// post is one transaction (the community's row lock, the lesson's place, the row, the community notification of
/// `CommunityNotifications.publish`); after the commit the notification goes to every member's devices through
/// `Deliveries` (every node of a cluster), the same bytes for each. Edits and deletions are told to members with
/// `community.post.updated`/`community.post.deleted` (no notification); a member's progress to that member's own
/// devices with `course.progress`.
struct CoursesFeature: Feature {
    init(context: ProtocolServices) {}


    func register(in registry: inout FeatureRegistry) {
        registry.add(CoursesAccountData.deletionSteps)
        registry.add(CoursesAccountData.exportSection)
        registry.operations.register(Ops.CommunityPostsCreate.self) { s, p async throws(ServiceError) -> CommunityPostResult in
            guard p.kind == "announcement" || p.kind == "lesson" else { throw ServiceError(.badRequest, "kind must be announcement or lesson") }
            let limits = s.services.communities
            try ModerationFeature.check(p.title, limits.titleRule)
            try ModerationFeature.check(p.body, limits.bodyRule)
            try Self.checkVideo(p.videoUrl, limits)
            if let position = p.position {
                guard p.kind == "lesson" else { throw ServiceError(.badRequest, "position is for lessons") }
                guard position >= 1 else { throw ServiceError(.badRequest, "position must be 1 or more") }
            }
            let me = s.userId
            let (post, notification, members) = try await Self.database(s, transaction: true) { db in
                guard try CoursePostRepository.lockCommunity(db, communityId: p.communityId) else { throw Self.noSuchCommunity }
                let membership = try CommunityRepository.membership(db, communityId: p.communityId, userId: me)
                try Self.requirePoster(membership)
                // Core members' posts count against their hourly allowance; administrators run the communities.
                if membership?.administrator != true { try s.countPublication() }
                if let clip = p.voiceClipId { try Self.requireOwnClip(db, clip, me) }
                let post = try CoursePostRepository.create(
                    db, communityId: p.communityId, authorId: me, kind: p.kind, title: p.title, body: p.body ?? "", voiceClipId: p.voiceClipId,
                    videoUrl: p.videoUrl, position: p.position)
                let notification = try CommunityNotifications.publish(
                    db, communityId: p.communityId, kind: p.kind, postId: post.postId, actorId: me, title: p.title)
                return (post, notification, try CommunityRepository.memberIds(db, communityId: p.communityId))
            }
            CommunitiesFeature.pushNotification(s.services, notification, to: members)
            return CommunityPostResult(post: post)
        }
        registry.operations.register(Ops.CommunityPostsUpdate.self) { s, p async throws(ServiceError) -> CommunityPostResult in
            guard p.title != nil || p.body != nil || p.voiceClipId != nil || p.videoUrl != nil else {
                throw ServiceError(.badRequest, "nothing to change: give title, body, voice_clip_id or video_url")
            }
            let limits = s.services.communities
            try ModerationFeature.check(p.title, limits.titleRule)
            try ModerationFeature.check(p.body, limits.bodyRule)
            if let video = p.videoUrl { try Self.checkVideo(video, limits) }
            let me = s.userId
            let (post, members) = try await Self.database(s, transaction: true) { db in
                let info = try Self.editablePost(db, postId: p.postId, me: me)
                if let clip = p.voiceClipId ?? nil { try Self.requireOwnClip(db, clip, me) }
                try CoursePostRepository.update(db, postId: p.postId, title: p.title, body: p.body, voiceClipId: p.voiceClipId, videoUrl: p.videoUrl)
                guard let post = try CoursePostRepository.post(db, postId: p.postId, viewer: me) else { throw Self.noSuchPost }
                return (post, try CommunityRepository.memberIds(db, communityId: info.communityId))
            }
            var shared = post
            shared.completed = false
            s.services.deliveries.send(
                ProtocolCodec.encodeEvent(CourseEvents.PostUpdated(post: shared)), toUsers: members)
            return CommunityPostResult(post: post)
        }
        registry.operations.register(Ops.CommunityPostsDelete.self) { s, p async throws(ServiceError) -> Ops.CommunityPostsDelete.Result in
            let me = s.userId
            let (communityId, members) = try await Self.database(s, transaction: true) { db in
                let info = try Self.editablePost(db, postId: p.postId, me: me)
                guard try CoursePostRepository.delete(db, postId: p.postId) else { throw Self.noSuchPost }
                return (info.communityId, try CommunityRepository.memberIds(db, communityId: info.communityId))
            }
            s.services.deliveries.send(
                ProtocolCodec.encodeEvent(CourseEvents.PostDeleted(communityId: communityId, postId: p.postId)),
                toUsers: members)
            return .init()
        }
        registry.operations.register(Ops.CommunityPostsList.self) { s, p async throws(ServiceError) -> Ops.CommunityPostsList.Result in
            let kind = p.kind ?? "announcement"
            guard kind == "announcement" || kind == "lesson" else { throw ServiceError(.badRequest, "kind must be announcement or lesson") }
            let limit = try s.services.communities.page(p.limit)
            if let before = p.before, before < 1 { throw ServiceError(.badRequest, "before must be a post id (1 or more)") }
            let me = s.userId
            let posts = try await Self.database(s) { db in
                try Self.requireReader(try CommunityRepository.membership(db, communityId: p.communityId, userId: me))
                return try CoursePostRepository.list(db, communityId: p.communityId, kind: kind, before: p.before, limit: limit + 1, viewer: me)
            }
            let page = Array(posts.prefix(limit))
            return .init(posts: page, nextBefore: posts.count > limit ? page.last?.postId : nil)
        }
        registry.operations.register(Ops.CoursesGet.self) { s, p async throws(ServiceError) -> Ops.CoursesGet.Result in
            let me = s.userId
            let lessons = try await Self.database(s) { db in
                try Self.requireReader(try CommunityRepository.membership(db, communityId: p.communityId, userId: me))
                return try CoursePostRepository.lessons(db, communityId: p.communityId, viewer: me)
            }
            return .init(lessons: lessons, completed: lessons.filter(\.completed).count, total: lessons.count)
        }
        registry.operations.register(Ops.CoursesComplete.self) { s, p async throws(ServiceError) -> Ops.CoursesComplete.Result in
            let me = s.userId
            let completed = p.completed ?? true
            let (communityId, progress) = try await Self.database(s, transaction: true) { db in
                guard let info = try CoursePostRepository.info(db, postId: p.postId) else { throw Self.noSuchPost }
                let membership = try CommunityRepository.membership(db, communityId: info.communityId, userId: me)
                try Self.requireReader(membership)
                guard membership?.role != nil else { throw ServiceError(.forbidden, "only members follow the course") }
                guard membership?.archived == false else { throw ServiceError(.forbidden, "the community is archived") }
                guard info.kind == "lesson" else { throw ServiceError(.badRequest, "not a lesson") }
                _ = try CoursePostRepository.setCompleted(db, postId: p.postId, userId: me, completed: completed)
                return (info.communityId, try CoursePostRepository.progress(db, communityId: info.communityId, userId: me))
            }
            let event = CourseEvents.Progress(
                communityId: communityId, postId: p.postId, completed: completed, completedCount: progress.completed, total: progress.total)
            s.services.deliveries.send(ProtocolCodec.encodeEvent(event), toUsers: [me])
            return .init(completed: progress.completed, total: progress.total)
        }
        registry.operations.register(Ops.CoursesProgress.self) { s, p async throws(ServiceError) -> Ops.CoursesProgress.Result in
            let limit = try s.services.communities.page(p.limit, people: true)
            let after: Int64? = try p.cursor.map { cursor throws(ServiceError) in
                guard let id = Int64(cursor), id > 0 else { throw ServiceError(.badRequest, "cursor is not one this server gave") }
                return id
            }
            let me = s.userId
            let (members, total) = try await Self.database(s) { db in
                let membership = try CommunityRepository.membership(db, communityId: p.communityId, userId: me)
                try Self.requireReader(membership)
                guard membership?.role == "core" || membership?.administrator == true else {
                    throw ServiceError(.forbidden, "only core members and administrators see the members' progress")
                }
                let members = try CoursePostRepository.memberProgress(db, communityId: p.communityId, after: after, limit: limit + 1)
                return (members, try CoursePostRepository.progress(db, communityId: p.communityId, userId: me).total)
            }
            let page = Array(members.prefix(limit))
            return .init(members: page, total: total, nextCursor: members.count > limit ? page.last.map { String($0.user.userId) } : nil)
        }
    }

    static let noSuchCommunity = ServiceError(.notFound, "no such community")
    static let noSuchPost = ServiceError(.notFound, "no such post")

    /// Members-only content: `not_found` for no such community (or an archived one the user is not in and does not
    /// administer), `forbidden` for a live community the user is not a member of (administrators read every one).
    static func requireReader(_ membership: CommunityMembership?) throws(ServiceError) {
        guard let membership else { throw noSuchCommunity }
        try membership.requireReader()
    }

    /// Posting: core members and administrators, in a live community.
    static func requirePoster(_ membership: CommunityMembership?) throws(ServiceError) {
        try requireReader(membership)
        guard let membership, membership.role == "core" || membership.administrator else {
            throw ServiceError(.forbidden, "only core members and administrators post")
        }
        guard !membership.archived else { throw ServiceError(.forbidden, "the community is archived") }
    }

    /// A live post the user may edit or delete: its author (still able to read the community) or an administrator.
    static func editablePost(_ db: PostgresConnection, postId: Int64, me: Int64) throws -> CoursePostRepository.PostInfo {
        guard let info = try CoursePostRepository.info(db, postId: postId, lock: true) else { throw noSuchPost }
        let membership = try CommunityRepository.membership(db, communityId: info.communityId, userId: me)
        do { try requireReader(membership) } catch { throw error.code == .forbidden ? noSuchPost : error }
        guard info.authorId == me || membership?.administrator == true else { throw ServiceError(.forbidden, "only the author or an administrator") }
        guard membership?.archived == false else { throw ServiceError(.forbidden, "the community is archived") }
        return info
    }

    /// A voice clip is attached only by the user who uploaded it (`POST /voice`): anyone else's is `not_found`,
    /// like `GET /voice/ID`.
    static func requireOwnClip(_ db: PostgresConnection, _ clipId: Int64, _ me: Int64) throws {
        guard try VoiceStore.owned(db, id: clipId, by: me) != nil else { throw ServiceError(.notFound, "no such voice clip") }
    }

    /// A video link: an absolute http or https URL with a host, at most `maxURLBytes` bytes.
    static func checkVideo(_ url: String?, _ limits: CommunityConfiguration) throws(ServiceError) {
        guard let url else { return }
        guard url.utf8.count <= limits.maxURLBytes, let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty
        else { throw ServiceError(.badRequest, "video_url must be an http or https URL of at most \(limits.maxURLBytes) bytes") }
    }

    static func database<Op, T: Sendable>(
        _ s: RequestContext<Op>.Snapshot, transaction: Bool = false, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(ServiceError) -> T {
        let pool = s.services.accounts.pool
        do {
            return transaction ? try await pool.transaction(body) : try await pool.withConnection(body)
        } catch { throw ServiceError.from(error) }
    }
}
