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

/// Social notifications' use cases (docs/protocol.md, "Social notifications"): the grouped list, the unread count
/// and marking read. The rows are written by follows and posts inside their own transactions
/// (`SocialNotifications.record`); the live `notification` event is `SocialLive`'s. Marking read tells the
/// caller's devices `notifications.read`. Off the loops only.
final class SocialNotificationService: Sendable {
    let db: any Database

    /// Groups per page: default and most.
    static let defaultGroups = 20
    static let maxGroups = 50
    /// Rows read for one page at most (a page of 50 groups of many likes each stops there; `next_before` goes on).
    static let maxRows = 1000
    /// Rows read per query while grouping.
    static let rowsPerRead = 200

    init(db: any Database) {
        self.db = db
    }

    /// `notifications.list`: a page of groups, newest first, below `before` (a notification id).
    func list(user: Int64, before: Int64?, limit: Int?) async throws(SocialNotificationError) -> SocialNotificationsPage
    {
        let limit = limit ?? Self.defaultGroups
        guard (1...Self.maxGroups).contains(limit) else { throw .pageLimit(max: Self.maxGroups) }
        if let before, before <= 0 { throw .badBefore }
        return try await db.write(as: SocialNotificationError.self) { db in
            try Self.page(db, user, before: before, limit: limit)
        }
    }

    /// `notifications.unread`: the caller's unread count.
    func unread(user: Int64) async throws(SocialNotificationError) -> SocialUnread {
        SocialUnread(
            unread: try await db.read(as: SocialNotificationError.self) { db in
                try SocialNotifications.unread(db, userId: user)
            })
    }

    /// `notifications.read`: marks the caller's notifications read up to `upTo` (all without it); the caller's
    /// devices hear `notifications.read` with the new mark and count.
    func markRead(
        user: Int64, upTo: Int64?
    ) async throws(SocialNotificationError) -> (SocialUnread, [DomainEvent]) {
        if let upTo, upTo < 0 { throw .badUpTo }
        let (readId, unread) = try await db.write(as: SocialNotificationError.self) { db in
            let readId = try SocialNotifications.markRead(db, userId: user, upTo: upTo)
            return (readId, try SocialNotifications.unread(db, userId: user))
        }
        let event = SocialNotificationsReadEvent(readId: readId, unread: unread)
        return (SocialUnread(unread: unread), [DomainEvent(to: [user], event)])
    }

    /// A page of groups: rows newest first, each joining the group of its key on this page (likes and reposts by
    /// post, follows and follow requests each all together, a reply or mention alone) until `limit` groups are made
    /// and the next row would start another, or `maxRows` rows were read.
    static func page(
        _ db: PostgresConnection, _ me: Int64, before: Int64?, limit: Int
    ) throws -> SocialNotificationsPage {
        var groups: [Group] = []
        var byKey: [String: Int] = [:]
        var cursor = before
        var consumed = 0
        var lastConsumed: Int64?
        var exhausted = false
        reading: while consumed < maxRows {
            let rows = try SocialNotifications.page(db, userId: me, before: cursor, limit: rowsPerRead)
            if rows.isEmpty {
                exhausted = true
                break
            }
            for row in rows {
                let key = Group.key(of: row)
                if let i = byKey[key] {
                    groups[i].add(row)
                } else {
                    if groups.count == limit { break reading }
                    byKey[key] = groups.count
                    groups.append(Group(row))
                }
                consumed += 1
                lastConsumed = row.id
                if consumed >= maxRows { break reading }
            }
            cursor = rows.last?.id
            if rows.count < rowsPerRead {
                exhausted = true
                break
            }
        }
        // The next page starts below the last row used (null when no older row is left).
        var nextBefore: Int64? = nil
        if let last = lastConsumed,
            try !exhausted || !SocialNotifications.page(db, userId: me, before: last, limit: 1).isEmpty
        {
            nextBefore = last
        }
        let actorIds = Set(groups.flatMap { $0.actors.prefix(3) })
        let users = try SocialGraphRepository.socialUsers(db, ids: Array(actorIds))
        let posts = try PostRepository.posts(db, ids: Array(Set(groups.compactMap(\.postId))), viewer: 0)
        let unread = try SocialNotifications.unread(db, userId: me)
        return SocialNotificationsPage(
            groups: groups.map { g in
                SocialNotificationGroup(
                    kind: g.kind.rawValue, post: g.postId.flatMap { posts[$0] },
                    actors: g.actors.prefix(3).compactMap { users[$0] }, actorCount: Int64(g.actors.count),
                    latestAt: g.latestAt, newestId: g.newestId, unread: g.unread)
            }, unread: unread, nextBefore: nextBefore)
    }

    /// A group of notifications being made: its kind and post, its actors in order (each once), and its newest row.
    struct Group {
        var kind: SocialNotificationKind
        var postId: Int64?
        var actors: [Int64]
        var actorSet: Set<Int64>
        var latestAt: String
        var newestId: Int64
        var unread: Bool

        /// A group of one row (the newest of the group: rows come newest first).
        init(_ row: SocialNotifications.Row) {
            kind = row.kind
            postId = row.postId
            actors = [row.actorId]
            actorSet = [row.actorId]
            latestAt = row.createdAt
            newestId = row.id
            unread = row.unread
        }

        /// An older row of the group.
        mutating func add(_ row: SocialNotifications.Row) {
            if actorSet.insert(row.actorId).inserted { actors.append(row.actorId) }
            unread = unread || row.unread
        }

        /// The group a row joins: likes and reposts by post, follows and follow requests all together, a reply or
        /// a mention alone.
        static func key(of row: SocialNotifications.Row) -> String {
            switch row.kind {
            case .like, .repost: return "\(row.kind.rawValue):\(row.postId ?? 0)"
            case .follow, .followRequest: return row.kind.rawValue
            case .reply, .mention: return "\(row.kind.rawValue)#\(row.id)"
            }
        }
    }
}
