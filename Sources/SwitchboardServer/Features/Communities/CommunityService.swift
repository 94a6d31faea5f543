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

/// Communities' use cases (docs/protocol.md, "Communities"): the list, membership, core members, the notifications
/// and the unread markers. Each is one read or one transaction on the database seam, the rules checked first, the
/// events to tell returned with the result (never pushed from here).
///
/// Everyone sees live communities; an archived one only its members and the administrators (others get
/// `noSuchCommunity`). Only administrators create, change, archive and appoint core members (the role is checked
/// before anything else, `forbidden` to anyone else). Members-only content (members, notifications) follows
/// `CommunityMembership.requireReader`. Events and courses publish their notifications with
/// `CommunityNotifications.publish` inside their own transactions and tell them with `notificationEvent`.
final class CommunityService: Sendable {
    let db: any Database
    let limits: CommunityConfiguration
    /// The wall clock: `communities.quit` drops the caller's participations in the events not ended at this instant.
    let now: @Sendable () -> Date

    init(db: any Database, limits: CommunityConfiguration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.db = db
        self.limits = limits
        self.now = now
    }

    /// `community.notification {notification}` for every connected device of `members` (the publisher's audience, read
    /// in the transaction that published it).
    static func notificationEvent(_ notification: CommunityNotification, to members: [Int64]) -> DomainEvent {
        DomainEvent(to: members, CommunityNotificationEvent(notification: notification))
    }

    /// `communities.list`: the communities the viewer sees, joined first, each part in the viewer's locale's order,
    /// in pages; with the viewer's total of unread notifications.
    func list(viewer: Int64, limit: Int?, cursor: String?) async throws(CommunityError) -> Ops.CommunitiesList.Result {
        let limit = try limits.page(limit)
        let after = try Self.cursor(cursor)
        return try await db.read(as: CommunityError.self) { db in
            let collation = try CommunityCollation.name(db, locale: try CommunityRepository.locale(db, userId: viewer))
            let admin = try AdministratorRole.holds(db, viewer)
            let rows = try CommunityRepository.list(
                db, userId: viewer, administrator: admin, collation: collation, after: after, limit: limit + 1)
            let page = rows.prefix(limit)
            return .init(
                communities: page.map(\.community), nextCursor: rows.count > limit ? page.last?.cursor.encoded : nil,
                unreadTotal: try CommunityRepository.unreadTotal(db, userId: viewer))
        }
    }

    /// `communities.get`: one community the viewer sees.
    func community(_ communityId: Int64, viewer: Int64) async throws(CommunityError) -> CommunityResult {
        try await db.read(as: CommunityError.self) { db in
            guard let m = try CommunityRepository.membership(db, communityId: communityId, userId: viewer), m.visible,
                let community = try CommunityRepository.community(db, id: communityId, userId: viewer)
            else { throw CommunityError.noSuchCommunity }
            return CommunityResult(community: community)
        }
    }

    /// `communities.create` (administrators): a new community with a name no live community has.
    func create(
        _ caller: Caller, name: String, description: String?, category: String?, picture: String?
    ) async throws(CommunityError) -> CommunityResult {
        try await db.requireAdministrator(caller.userId, otherwise: CommunityError.administratorsOnly)
        let name = try checkedName(name)
        try limits.check(description, limits.communityDescriptionRule)
        try limits.check(category, limits.categoryRule)
        let picture = try checkedPicture(picture)
        let me = caller.userId
        return try await db.write(as: CommunityError.self) { db in
            let id = try CommunityRepository.create(
                db, name: name, description: description ?? "", category: category ?? "", picture: picture,
                createdBy: me)
            guard let community = try CommunityRepository.community(db, id: id, userId: me) else {
                throw CommunityError.notStored
            }
            return CommunityResult(community: community)
        }
    }

    /// `communities.update` (administrators): the given fields (`picture` "" removes it); its members hear
    /// `community.updated`.
    func update(
        _ caller: Caller, communityId: Int64, name: String?, description: String?, category: String?, picture: String?
    ) async throws(CommunityError) -> (CommunityResult, [DomainEvent]) {
        try await db.requireAdministrator(caller.userId, otherwise: CommunityError.administratorsOnly)
        let name = try name.map { (name) throws(CommunityError) in try checkedName(name) }
        try limits.check(description, limits.communityDescriptionRule)
        try limits.check(category, limits.categoryRule)
        let picture = picture == "" ? "" : try checkedPicture(picture)
        let me = caller.userId
        let (community, members) = try await db.write(as: CommunityError.self) { db in
            guard
                try CommunityRepository.update(
                    db, id: communityId, name: name, description: description, category: category, picture: picture),
                let community = try CommunityRepository.community(db, id: communityId, userId: me)
            else { throw CommunityError.noSuchCommunity }
            return (community, try CommunityRepository.memberIds(db, communityId: communityId))
        }
        return (
            CommunityResult(community: community),
            [DomainEvent(to: members, CommunityUpdatedEvent(community: community.shared))]
        )
    }

    /// `communities.archive` (administrators): the community becomes read-only; its members hear
    /// `community.archived`.
    func archive(_ caller: Caller, communityId: Int64) async throws(CommunityError) -> [DomainEvent] {
        try await db.requireAdministrator(caller.userId, otherwise: CommunityError.administratorsOnly)
        let members = try await db.write(as: CommunityError.self) { db in
            guard try CommunityRepository.archive(db, id: communityId) else { throw CommunityError.noSuchCommunity }
            return try CommunityRepository.memberIds(db, communityId: communityId)
        }
        return [DomainEvent(to: members, CommunityArchivedEvent(communityId: communityId))]
    }

    /// `communities.join`: the caller becomes a member of a live community (nothing unread yet); its own devices
    /// hear `community.joined`.
    func join(_ caller: Caller, communityId: Int64) async throws(CommunityError) -> (CommunityResult, [DomainEvent]) {
        let me = caller.userId
        let community = try await db.write(as: CommunityError.self) { db in
            try CommunityRepository.join(db, communityId: communityId, userId: me)
            guard let community = try CommunityRepository.community(db, id: communityId, userId: me) else {
                throw CommunityError.noSuchCommunity
            }
            return community
        }
        return (
            CommunityResult(community: community), [DomainEvent(to: [me], CommunityJoinedEvent(community: community))]
        )
    }

    /// `communities.quit`: the caller leaves, dropping its places in the community's events that have not ended; its
    /// own devices hear `community.left` with the dropped events.
    func quit(
        _ caller: Caller, communityId: Int64
    ) async throws(CommunityError) -> (Ops.CommunitiesQuit.Result, [DomainEvent]) {
        let me = caller.userId
        let now = self.now
        let dropped = try await db.write(as: CommunityError.self) { db in
            try CommunityRepository.quit(db, communityId: communityId, userId: me, now: now())
        }
        return (
            .init(droppedEventIds: dropped),
            [DomainEvent(to: [me], CommunityLeftEvent(communityId: communityId, droppedEventIds: dropped))]
        )
    }

    /// `communities.members` (members and administrators): core members first, then by name in the viewer's locale.
    func members(
        communityId: Int64, viewer: Int64, limit: Int?, cursor: String?
    ) async throws(CommunityError) -> Ops.CommunitiesMembers.Result {
        let limit = try limits.page(limit, people: true)
        let after = try Self.cursor(cursor)
        return try await db.read(as: CommunityError.self) { db in
            _ = try CommunityRepository.requireReader(db, communityId: communityId, userId: viewer)
            let collation = try CommunityCollation.name(db, locale: try CommunityRepository.locale(db, userId: viewer))
            let rows = try CommunityRepository.members(
                db, communityId: communityId, collation: collation, after: after, limit: limit + 1)
            let page = rows.prefix(limit)
            return .init(members: page.map(\.member), nextCursor: rows.count > limit ? page.last?.cursor.encoded : nil)
        }
    }

    /// `communities.core` (administrators): appoints or removes a core member; when that changed the role, the
    /// member's devices hear `community.role`.
    func setCore(
        _ caller: Caller, communityId: Int64, userId: Int64, core: Bool
    ) async throws(CommunityError) -> [DomainEvent] {
        try await db.requireAdministrator(caller.userId, otherwise: CommunityError.administratorsOnly)
        let changed = try await db.write(as: CommunityError.self) { db in
            guard try CommunityRepository.membership(db, communityId: communityId, userId: userId) != nil,
                let changed = try CommunityRepository.setCore(db, communityId: communityId, userId: userId, core: core)
            else { throw CommunityError.noSuchMember }
            return changed
        }
        guard changed else { return [] }
        let event = CommunityRoleEvent(communityId: communityId, userId: userId, role: core ? "core" : "member")
        return [DomainEvent(to: [userId], event)]
    }

    /// `communities.unread`: the viewer's joined communities with unread notifications, and their total.
    func unread(viewer: Int64) async throws(CommunityError) -> Ops.CommunitiesUnread.Result {
        let unread = try await db.read(as: CommunityError.self) { db in
            try CommunityRepository.unread(db, userId: viewer)
        }
        return .init(unreadTotal: unread.reduce(0) { $0 + $1.unread }, communities: unread)
    }

    /// `communities.notifications` (members and administrators): newest first, in pages, with the viewer's marker.
    func notifications(
        communityId: Int64, viewer: Int64, beforeSeq: Int64?, limit: Int?
    ) async throws(CommunityError) -> Ops.CommunitiesNotifications.Result {
        let limit = try limits.page(limit)
        if let beforeSeq, beforeSeq < 1 { throw .badBeforeSeq }
        return try await db.read(as: CommunityError.self) { db in
            let m = try CommunityRepository.requireReader(db, communityId: communityId, userId: viewer)
            let rows = try CommunityRepository.notifications(
                db, communityId: communityId, beforeSeq: beforeSeq, limit: limit + 1)
            let page = Array(rows.prefix(limit))
            return .init(
                notifications: page, readSeq: m.readSeq, nextBeforeSeq: rows.count > limit ? page.last?.seq : nil)
        }
    }

    /// `communities.read` (members): moves the caller's marker forward (never back); its own devices hear
    /// `community.read` with the counts after it.
    func read(
        _ caller: Caller, communityId: Int64, seq: Int64?
    ) async throws(CommunityError) -> (Ops.CommunitiesRead.Result, [DomainEvent]) {
        if let seq, seq < 0 { throw .badSeq }
        let me = caller.userId
        let event = try await db.write(as: CommunityError.self) { db in
            guard let marker = try CommunityRepository.read(db, communityId: communityId, userId: me, seq: seq) else {
                guard let m = try CommunityRepository.membership(db, communityId: communityId, userId: me), m.visible
                else { throw CommunityError.noSuchCommunity }
                throw CommunityError.notAMember
            }
            return CommunityReadEvent(
                communityId: communityId, readSeq: marker.readSeq, unread: max(0, marker.lastSeq - marker.readSeq),
                unreadTotal: try CommunityRepository.unreadTotal(db, userId: me))
        }
        return (
            .init(readSeq: event.readSeq, unread: event.unread, unreadTotal: event.unreadTotal),
            [DomainEvent(to: [me], event)]
        )
    }

    // MARK: - Rules

    /// A community name, trimmed: a valid stored string, not empty.
    func checkedName(_ name: String) throws(CommunityError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        try limits.check(trimmed, limits.nameRule)
        guard !trimmed.isEmpty else { throw .emptyName }
        return trimmed
    }

    /// An http(s) URL of at most `maxURLBytes` bytes without spaces or control characters, or nil.
    func checkedPicture(_ picture: String?) throws(CommunityError) -> String? {
        guard let picture else { return nil }
        guard picture.utf8.count <= limits.maxURLBytes, picture.hasPrefix("https://") || picture.hasPrefix("http://"),
            !picture.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 32 || $0 == 127 } == true })
        else { throw .badPicture(maxBytes: limits.maxURLBytes) }
        return picture
    }

    /// A cursor of `communities.list` or `communities.members`, or nil.
    static func cursor(_ text: String?) throws(CommunityError) -> CommunityCursor? {
        guard let text else { return nil }
        guard let cursor = CommunityCursor(encoded: text) else { throw .badCursor }
        return cursor
    }
}
