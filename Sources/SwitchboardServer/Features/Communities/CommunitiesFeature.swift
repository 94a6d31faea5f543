//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol
import Foundation
import SwitchboardDomain
import SwitchboardStore

/// Communities (`docs/protocol.md`, "Communities"): the list, membership, core members, the notifications and
/// unread markers. Events and courses publish their notifications with `CommunityNotifications.publish` inside
/// their transaction and, after the commit, `pushNotification` to the members.
struct CommunitiesFeature: Feature {
    static let migrations: [Migration] = [.v0009Communities]

    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.add(CommunitiesAccountData.deletionSteps)
        registry.add(CommunitiesAccountData.exportSection)
        registry.operations.register(Ops.CommunitiesList.self) { s, p async throws(ServiceError) -> Ops.CommunitiesList.Result in
            let limit = try s.services.communities.page(p.limit)
            let cursor = try Self.cursor(p.cursor)
            let me = s.userId
            return try await Self.database(s) { db in
                let collation = try CommunityCollation.name(db, locale: try CommunityRepository.locale(db, userId: me))
                let admin = try ModerationRepository.isAdministrator(db, me)
                let rows = try CommunityRepository.list(db, userId: me, administrator: admin, collation: collation, after: cursor, limit: limit + 1)
                let page = rows.prefix(limit)
                return .init(
                    communities: page.map(\.community), nextCursor: rows.count > limit ? page.last?.cursor.encoded : nil,
                    unreadTotal: try CommunityRepository.unreadTotal(db, userId: me))
            }
        }
        registry.operations.register(Ops.CommunitiesGet.self) { s, p async throws(ServiceError) -> CommunityResult in
            let me = s.userId
            return CommunityResult(
                community: try await Self.database(s) { db in
                    guard let m = try CommunityRepository.membership(db, communityId: p.communityId, userId: me), m.visible,
                        let community = try CommunityRepository.community(db, id: p.communityId, userId: me)
                    else { throw ServiceError(.notFound, "no such community") }
                    return community
                })
        }
        registry.operations.register(Ops.CommunitiesCreate.self) { s, p async throws(ServiceError) -> CommunityResult in
            try await ModerationFeature.requireAdministrator(s)
            let limits = s.services.communities
            let name = try Self.checkedName(p.name, limits)
            try ModerationFeature.check(p.description, limits.communityDescriptionRule)
            try ModerationFeature.check(p.category, limits.categoryRule)
            let picture = try Self.checkedPicture(p.picture, limits)
            let me = s.userId
            return CommunityResult(
                community: try await Self.database(s, transaction: true) { db in
                    let id = try CommunityRepository.create(
                        db, name: name, description: p.description ?? "", category: p.category ?? "", picture: picture, createdBy: me)
                    guard let community = try CommunityRepository.community(db, id: id, userId: me) else { throw ServiceError(.internal, "internal error") }
                    return community
                })
        }
        registry.operations.register(Ops.CommunitiesUpdate.self) { s, p async throws(ServiceError) -> CommunityResult in
            try await ModerationFeature.requireAdministrator(s)
            let limits = s.services.communities
            let name = try p.name.map { (n) throws(ServiceError) in try Self.checkedName(n, limits) }
            try ModerationFeature.check(p.description, limits.communityDescriptionRule)
            try ModerationFeature.check(p.category, limits.categoryRule)
            let picture = p.picture == "" ? "" : try Self.checkedPicture(p.picture, limits)
            let me = s.userId
            let (community, members) = try await Self.database(s, transaction: true) { db in
                guard
                    try CommunityRepository.update(
                        db, id: p.communityId, name: name, description: p.description, category: p.category, picture: picture),
                    let community = try CommunityRepository.community(db, id: p.communityId, userId: me)
                else { throw ServiceError(.notFound, "no such community") }
                return (community, try CommunityRepository.memberIds(db, communityId: p.communityId))
            }
            s.services.deliveries.send(
                ProtocolCodec.encodeEvent(CommunityUpdatedEvent(community: community.shared)), toUsers: members)
            return CommunityResult(community: community)
        }
        registry.operations.register(Ops.CommunitiesArchive.self) { s, p async throws(ServiceError) -> Empty in
            try await ModerationFeature.requireAdministrator(s)
            let members = try await Self.database(s, transaction: true) { db in
                guard try CommunityRepository.archive(db, id: p.communityId) else { throw ServiceError(.notFound, "no such community") }
                return try CommunityRepository.memberIds(db, communityId: p.communityId)
            }
            s.services.deliveries.send(
                ProtocolCodec.encodeEvent(CommunityArchivedEvent(communityId: p.communityId)), toUsers: members)
            return Empty()
        }
        registry.operations.register(Ops.CommunitiesJoin.self) { s, p async throws(ServiceError) -> CommunityResult in
            let me = s.userId
            let community = try await Self.database(s, transaction: true) { db in
                try CommunityRepository.join(db, communityId: p.communityId, userId: me)
                guard let community = try CommunityRepository.community(db, id: p.communityId, userId: me) else {
                    throw ServiceError(.notFound, "no such community")
                }
                return community
            }
            s.services.deliveries.send(
                ProtocolCodec.encodeEvent(CommunityJoinedEvent(community: community)), toUsers: [me])
            return CommunityResult(community: community)
        }
        registry.operations.register(Ops.CommunitiesQuit.self) { s, p async throws(ServiceError) -> Ops.CommunitiesQuit.Result in
            let me = s.userId
            let dropped = try await Self.database(s, transaction: true) { db in
                try CommunityRepository.quit(db, communityId: p.communityId, userId: me, now: Date())
            }
            s.services.deliveries.send(
                ProtocolCodec.encodeEvent(CommunityLeftEvent(communityId: p.communityId, droppedEventIds: dropped)),
                toUsers: [me])
            return .init(droppedEventIds: dropped)
        }
        registry.operations.register(Ops.CommunitiesMembers.self) { s, p async throws(ServiceError) -> Ops.CommunitiesMembers.Result in
            let limit = try s.services.communities.page(p.limit, people: true)
            let cursor = try Self.cursor(p.cursor)
            let me = s.userId
            return try await Self.database(s) { db in
                _ = try CommunityRepository.requireReader(db, communityId: p.communityId, userId: me)
                let collation = try CommunityCollation.name(db, locale: try CommunityRepository.locale(db, userId: me))
                let rows = try CommunityRepository.members(db, communityId: p.communityId, collation: collation, after: cursor, limit: limit + 1)
                let page = rows.prefix(limit)
                return .init(members: page.map(\.member), nextCursor: rows.count > limit ? page.last?.cursor.encoded : nil)
            }
        }
        registry.operations.register(Ops.CommunitiesCore.self) { s, p async throws(ServiceError) -> Empty in
            try await ModerationFeature.requireAdministrator(s)
            let changed = try await Self.database(s, transaction: true) { db in
                guard try CommunityRepository.membership(db, communityId: p.communityId, userId: p.userId) != nil,
                    let changed = try CommunityRepository.setCore(db, communityId: p.communityId, userId: p.userId, core: p.core)
                else { throw ServiceError(.notFound, "not a member of this community") }
                return changed
            }
            if changed {
                let event = CommunityRoleEvent(communityId: p.communityId, userId: p.userId, role: p.core ? "core" : "member")
                s.services.deliveries.send(ProtocolCodec.encodeEvent(event), toUsers: [p.userId])
            }
            return Empty()
        }
        registry.operations.register(Ops.CommunitiesUnread.self) { s, _ async throws(ServiceError) -> Ops.CommunitiesUnread.Result in
            let me = s.userId
            let unread = try await Self.database(s) { db in try CommunityRepository.unread(db, userId: me) }
            return .init(unreadTotal: unread.reduce(0) { $0 + $1.unread }, communities: unread)
        }
        registry.operations.register(Ops.CommunitiesNotifications.self) { s, p async throws(ServiceError) -> Ops.CommunitiesNotifications.Result in
            let limit = try s.services.communities.page(p.limit)
            if let before = p.beforeSeq, before < 1 { throw ServiceError(.badRequest, "before_seq must be 1 or more") }
            let me = s.userId
            return try await Self.database(s) { db in
                let m = try CommunityRepository.requireReader(db, communityId: p.communityId, userId: me)
                let rows = try CommunityRepository.notifications(db, communityId: p.communityId, beforeSeq: p.beforeSeq, limit: limit + 1)
                let page = Array(rows.prefix(limit))
                return .init(notifications: page, readSeq: m.readSeq, nextBeforeSeq: rows.count > limit ? page.last?.seq : nil)
            }
        }
        registry.operations.register(Ops.CommunitiesRead.self) { s, p async throws(ServiceError) -> Ops.CommunitiesRead.Result in
            if let seq = p.seq, seq < 0 { throw ServiceError(.badRequest, "seq must be 0 or more") }
            let me = s.userId
            let event = try await Self.database(s, transaction: true) { db in
                guard let marker = try CommunityRepository.read(db, communityId: p.communityId, userId: me, seq: p.seq) else {
                    guard let m = try CommunityRepository.membership(db, communityId: p.communityId, userId: me), m.visible else {
                        throw ServiceError(.notFound, "no such community")
                    }
                    throw ServiceError(.forbidden, "not a member")
                }
                return CommunityReadEvent(
                    communityId: p.communityId, readSeq: marker.readSeq, unread: max(0, marker.lastSeq - marker.readSeq),
                    unreadTotal: try CommunityRepository.unreadTotal(db, userId: me))
            }
            s.services.deliveries.send(ProtocolCodec.encodeEvent(event), toUsers: [me])
            return .init(readSeq: event.readSeq, unread: event.unread, unreadTotal: event.unreadTotal)
        }
    }

    static func checkedName(_ name: String, _ limits: CommunityConfiguration) throws(ServiceError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        try ModerationFeature.check(trimmed, limits.nameRule)
        guard !trimmed.isEmpty else { throw ServiceError(.badRequest, "name must not be empty") }
        return trimmed
    }

    /// An http(s) URL of at most `maxURLBytes` bytes, or nil.
    static func checkedPicture(_ picture: String?, _ limits: CommunityConfiguration) throws(ServiceError) -> String? {
        guard let picture else { return nil }
        guard picture.utf8.count <= limits.maxURLBytes, picture.hasPrefix("https://") || picture.hasPrefix("http://"),
            !picture.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 32 || $0 == 127 } == true })
        else { throw ServiceError(.badRequest, "picture must be an http or https URL of at most \(limits.maxURLBytes) bytes") }
        return picture
    }

    static func cursor(_ text: String?) throws(ServiceError) -> CommunityCursor? {
        guard let text else { return nil }
        guard let cursor = CommunityCursor(encoded: text) else { throw ServiceError(.badRequest, "cursor is not one this server gave") }
        return cursor
    }

    static func database<Op, T: Sendable>(
        _ s: RequestContext<Op>.Snapshot, transaction: Bool = false, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(ServiceError) -> T {
        try await ModerationFeature.database(s, transaction: transaction, body)
    }

    /// Pushes `community.notification {notification}` (encoded once, the same bytes for every recipient) to every
    /// connected device of `members`, on every node (through the outbox and the cluster directory). Call it after
    /// the transaction that published the notification committed; `members` from `CommunityRepository.memberIds`
    /// (read in that transaction).
    static func pushNotification(_ services: ProtocolServices, _ notification: CommunityNotification, to members: [Int64]) {
        let bytes = ProtocolCodec.encodeEvent(CommunityNotificationEvent(notification: notification))
        services.deliveries.send(bytes, toUsers: members)
    }
}
