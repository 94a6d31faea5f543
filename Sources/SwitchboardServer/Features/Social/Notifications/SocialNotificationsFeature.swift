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

/// Social notifications: `notifications.list` (grouped), `notifications.unread`, `notifications.read` (docs/protocol.md,
/// "Social notifications"). The rows are written by GRAPH and POSTS inside their transactions
/// (`SocialNotifications.record`); the live `notification` event is `SocialLive`'s (`SocialChange.notified`).
struct SocialNotificationsFeature: Feature {
    init(context: ProtocolServices) {}

    /// Groups per page: default and most.
    static let defaultGroups = 20
    static let maxGroups = 50
    /// Rows read for one page at most (a page of 50 groups of many likes each stops there; `next_before` goes on).
    static let maxRows = 1000

    func register(in registry: inout FeatureRegistry) {
        registry.add(SocialAccountData.notifications)
        registry.operations.register(Ops.NotificationsList.self) { context, p in
            let limit = p.limit ?? Self.defaultGroups
            guard (1...Self.maxGroups).contains(limit) else {
                context.fail(.badRequest, "limit must be 1-\(Self.maxGroups)")
                return
            }
            if let before = p.before, before <= 0 {
                context.fail(.badRequest, "before must be positive")
                return
            }
            let pool = context.services.accounts.pool
            let me = context.me
            context.run { () async throws(ServiceError) -> SocialNotificationsPage in
                do {
                    return try await pool.transaction { db in try Self.page(db, me, before: p.before, limit: limit) }
                } catch { throw ServiceError.from(error) }
            }
        }

        registry.operations.register(Ops.NotificationsUnread.self, work: { snapshot, _ throws(ServiceError) in
            let me = snapshot.userId
            do {
                return SocialUnread(unread: try await snapshot.services.accounts.pool.withConnection { db in try SocialNotifications.unread(db, userId: me) })
            } catch { throw ServiceError.from(error) }
        })

        registry.operations.register(Ops.NotificationsRead.self) { context, p in
            if let upTo = p.upTo, upTo < 0 {
                context.fail(.badRequest, "up_to must not be negative")
                return
            }
            let pool = context.services.accounts.pool
            let deliveries = context.services.deliveries
            let me = context.me
            context.run { () async throws(ServiceError) -> SocialUnread in
                let (readId, unread): (Int64, Int64)
                do {
                    (readId, unread) = try await pool.transaction { db in
                        let readId = try SocialNotifications.markRead(db, userId: me, upTo: p.upTo)
                        return (readId, try SocialNotifications.unread(db, userId: me))
                    }
                } catch { throw ServiceError.from(error) }
                deliveries.send(
                    ProtocolCodec.encodeEvent(SocialNotificationsReadEvent(readId: readId, unread: unread)),
                    toUsers: [me])
                return SocialUnread(unread: unread)
            }
        }
    }

    /// A page of groups: rows newest first, each joining the group of its key on this page (likes and reposts by
    /// post, follows and follow requests each all together, a reply or mention alone) until `limit` groups are made
    /// and the next row would start another, or `maxRows` rows were read.
    static func page(_ db: PostgresConnection, _ me: Int64, before: Int64?, limit: Int) throws -> SocialNotificationsPage {
        struct Group {
            var kind: SocialNotificationKind
            var postId: Int64?
            var actors: [Int64] = []
            var actorSet: Set<Int64> = []
            var latestAt: String
            var newestId: Int64
            var unread: Bool
        }
        var groups: [Group] = []
        var byKey: [String: Int] = [:]
        var cursor = before
        var consumed = 0
        var lastConsumed: Int64?
        var exhausted = false
        reading: while consumed < maxRows {
            let rows = try SocialNotifications.page(db, userId: me, before: cursor, limit: 200)
            if rows.isEmpty {
                exhausted = true
                break
            }
            for row in rows {
                let key: String
                switch row.kind {
                case .like, .repost: key = "\(row.kind.rawValue):\(row.postId ?? 0)"
                case .follow, .followRequest: key = row.kind.rawValue
                case .reply, .mention: key = "\(row.kind.rawValue)#\(row.id)"
                }
                if let i = byKey[key] {
                    if groups[i].actorSet.insert(row.actorId).inserted { groups[i].actors.append(row.actorId) }
                    groups[i].unread = groups[i].unread || row.unread
                } else {
                    if groups.count == limit { break reading }
                    byKey[key] = groups.count
                    groups.append(
                        Group(kind: row.kind, postId: row.postId, actors: [row.actorId], actorSet: [row.actorId], latestAt: row.createdAt, newestId: row.id, unread: row.unread))
                }
                consumed += 1
                lastConsumed = row.id
                if consumed >= maxRows { break reading }
            }
            cursor = rows.last?.id
            if rows.count < 200 {
                exhausted = true
                break
            }
        }
        // The next page starts below the last row used (null when no older row is left).
        var nextBefore: Int64? = nil
        if let last = lastConsumed, try !exhausted || !SocialNotifications.page(db, userId: me, before: last, limit: 1).isEmpty {
            nextBefore = last
        }
        let actorIds = Set(groups.flatMap { $0.actors.prefix(3) })
        let users = try SocialGraphRepository.socialUsers(db, ids: Array(actorIds))
        let posts = try PostRepository.posts(db, ids: Array(Set(groups.compactMap(\.postId))), viewer: 0)
        let unread = try SocialNotifications.unread(db, userId: me)
        return SocialNotificationsPage(
            groups: groups.map { g in
                SocialNotificationGroup(
                    kind: g.kind.rawValue, post: g.postId.flatMap { posts[$0] }, actors: g.actors.prefix(3).compactMap { users[$0] },
                    actorCount: Int64(g.actors.count), latestAt: g.latestAt, newestId: g.newestId, unread: g.unread)
            }, unread: unread, nextBefore: nextBefore)
    }
}
