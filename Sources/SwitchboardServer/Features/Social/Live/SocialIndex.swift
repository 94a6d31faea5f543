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

/// This node's live subscriptions and the indexes that route a change to them (`docs/social.md`): followee →
/// users with a home subscription here, author → user-page connections, thread root → thread connections, user →
/// notification connections, plus each subscribed user's follows, mutes and blocks (kept current by the graph
/// changes). Pure: `SocialLive` keeps one on its queue `switchboard.social`.
struct SocialIndex {
    /// One connection's subscriptions.
    struct Connection {
        var userId: Int64
        /// Each stream with its routing key: the author for `user`, the thread's root for `thread`, and the root's
        /// author (to drop the subscription when the viewer may no longer see it).
        var streams: [LiveStream: (key: Int64, owner: Int64)] = [:]
    }

    /// A user with subscribed connections here.
    struct User {
        var relations: SocialLiveRepository.Relations
        var connections: Set<ConnectionID> = []
        var home: Set<ConnectionID> = []
        var notifications: Set<ConnectionID> = []
    }

    private(set) var connections: [ConnectionID: Connection] = [:]
    private(set) var users: [Int64: User] = [:]
    /// Followee (or the user itself) → users with a home connection here who follow it.
    private(set) var home: [Int64: Set<Int64>] = [:]
    /// Author → connections subscribed to its page.
    private(set) var pages: [Int64: Set<ConnectionID>] = [:]
    /// Thread root → connections subscribed to the thread.
    private(set) var threads: [Int64: Set<ConnectionID>] = [:]
    /// Bumped by every graph change: a user's relations read from the database before a change landed here are
    /// read again (`SocialLive.subscribe`).
    private(set) var graphVersion: UInt64 = 0

    func knows(_ user: Int64) -> Bool { users[user] != nil }

    func streams(of connection: ConnectionID) -> [String] {
        (connections[connection]?.streams.keys.map(\.name) ?? []).sorted()
    }

    /// Why an `add` is refused.
    enum AddError: Error, Equatable {
        case tooMany
        /// The viewer blocks or is blocked by the stream's owner (a change that landed after the authorization).
        case notFound
        /// The user's relations are needed (not known here) or stale.
        case relationsNeeded
    }

    /// Subscribes `connection` (of `user`) to `streams` (each with its key and owner); `relations` when the user is
    /// not known here yet, read at graph version `version`. At most `limit` streams per connection in all.
    mutating func add(
        _ connection: ConnectionID, user: Int64, streams: [(LiveStream, key: Int64, owner: Int64)],
        relations: SocialLiveRepository.Relations?,
        readAt version: UInt64?, limit: Int
    ) -> Result<[String], AddError> {
        if users[user] == nil {
            // `version` nil: accept relations read while the graph kept changing (the last attempt).
            guard let relations, version == nil || version == graphVersion else { return .failure(.relationsNeeded) }
            users[user] = User(relations: relations)
        }
        var entry = connections[connection] ?? Connection(userId: user)
        let new = streams.filter { entry.streams[$0.0] == nil }
        guard entry.streams.count + Set(new.map(\.0)).count <= limit else {
            if connections[connection] == nil { dropUserIfIdle(user) }
            return .failure(.tooMany)
        }
        let relations = users[user]!.relations
        for (_, _, owner) in new where owner != user && relations.blocked.contains(owner) {
            if connections[connection] == nil { dropUserIfIdle(user) }
            return .failure(.notFound)
        }
        for (stream, key, owner) in new {
            entry.streams[stream] = (key, owner)
            switch stream {
            case .home:
                if users[user]!.home.isEmpty {
                    for f in relations.followees.union([user]) { home[f, default: []].insert(user) }
                }
                users[user]!.home.insert(connection)
            case .notifications: users[user]!.notifications.insert(connection)
            case .user: pages[key, default: []].insert(connection)
            case .thread: threads[key, default: []].insert(connection)
            }
        }
        connections[connection] = entry
        users[user]!.connections.insert(connection)
        return .success(self.streams(of: connection))
    }

    /// Unsubscribes `connection` from `streams` (all of them when nil).
    mutating func remove(_ connection: ConnectionID, streams: [LiveStream]? = nil) {
        guard var entry = connections[connection] else { return }
        let user = entry.userId
        for stream in streams ?? Array(entry.streams.keys) {
            guard let (key, _) = entry.streams.removeValue(forKey: stream) else { continue }
            switch stream {
            case .home:
                users[user]?.home.remove(connection)
                if users[user]?.home.isEmpty == true, let relations = users[user]?.relations {
                    for f in relations.followees.union([user]) { removeHome(f, user) }
                }
            case .notifications: users[user]?.notifications.remove(connection)
            case .user: Self.remove(connection, from: &pages, key)
            case .thread: Self.remove(connection, from: &threads, key)
            }
        }
        if entry.streams.isEmpty {
            connections[connection] = nil
            users[user]?.connections.remove(connection)
            dropUserIfIdle(user)
        } else {
            connections[connection] = entry
        }
    }

    private mutating func dropUserIfIdle(_ user: Int64) {
        if users[user]?.connections.isEmpty == true { users[user] = nil }
    }

    private mutating func removeHome(_ followee: Int64, _ user: Int64) {
        home[followee]?.remove(user)
        if home[followee]?.isEmpty == true { home[followee] = nil }
    }

    private static func remove(_ connection: ConnectionID, from index: inout [Int64: Set<ConnectionID>], _ key: Int64) {
        index[key]?.remove(connection)
        if index[key]?.isEmpty == true { index[key] = nil }
    }

    // MARK: graph changes

    /// Applies a follow, block or mute change (other items change nothing here).
    mutating func apply(_ change: SocialRouted) {
        switch change {
        case .follow(let follower, let followee, let active):
            graphVersion &+= 1
            setFollow(follower, followee, active)
        case .block(let blocker, let blocked, let active):
            graphVersion &+= 1
            for (a, b) in [(blocker, blocked), (blocked, blocker)] where users[a] != nil {
                if active { users[a]!.relations.blocked.insert(b) } else { users[a]!.relations.blocked.remove(b) }
            }
            if active {
                // A block ends the follows both ways (GRAPH tells us too; idempotent).
                setFollow(blocker, blocked, false)
                setFollow(blocked, blocker, false)
                dropSubscriptions(of: blocker, to: blocked)
                dropSubscriptions(of: blocked, to: blocker)
            }
        case .mute(let muter, let muted, let active):
            graphVersion &+= 1
            if users[muter] != nil {
                if active {
                    users[muter]!.relations.muted.insert(muted)
                } else {
                    users[muter]!.relations.muted.remove(muted)
                }
            }
        default: break
        }
    }

    private mutating func setFollow(_ follower: Int64, _ followee: Int64, _ active: Bool) {
        guard users[follower] != nil else { return }
        if active {
            users[follower]!.relations.followees.insert(followee)
            if !users[follower]!.home.isEmpty { home[followee, default: []].insert(follower) }
        } else {
            users[follower]!.relations.followees.remove(followee)
            if followee != follower { removeHome(followee, follower) }
        }
    }

    /// Removes `viewer`'s page and thread subscriptions owned by `owner` (a block, or an unfollow of a protected
    /// account).
    mutating func dropSubscriptions(of viewer: Int64, to owner: Int64) {
        guard let user = users[viewer] else { return }
        for connection in user.connections {
            guard let entry = connections[connection] else { continue }
            let gone = entry.streams.compactMap { stream, value -> LiveStream? in
                switch stream {
                case .user, .thread: value.owner == owner ? stream : nil
                default: nil
                }
            }
            if !gone.isEmpty { remove(connection, streams: gone) }
        }
    }

    // MARK: routing

    /// Whether `viewer` may see a post of `author` (protected: only itself and active followers; blocked either
    /// way: never).
    private func sees(_ viewer: User, _ viewerId: Int64, author: Int64, protected: Bool) -> Bool {
        if viewerId == author { return true }
        if viewer.relations.blocked.contains(author) { return false }
        return !protected || viewer.relations.followees.contains(author)
    }

    /// The connections a routed change goes to, each once however many of its streams match.
    func recipients(_ change: SocialRouted) -> Set<ConnectionID> {
        var out = Set<ConnectionID>()
        switch change {
        case .post(let r, _):
            // Home: followers of the author (and the author), with the home rules.
            for u in home[r.authorId] ?? [] {
                guard let user = users[u], homeShows(r, to: user, u) else { continue }
                out.formUnion(user.home)
            }
            for c in pages[r.authorId] ?? [] where visible(r, to: c) { out.insert(c) }
            if let root = r.threadRoot {
                for c in threads[root] ?? [] where visible(r, to: c) { out.insert(c) }
            }
        case .deleted(_, _, let author, let root, _):
            for u in home[author] ?? [] { out.formUnion(users[u]?.home ?? []) }
            out.formUnion(pages[author] ?? [])
            if let root { out.formUnion(threads[root] ?? []) }
        case .counts(_, let author, let protected, let key, let reposters, _),
            .photos(_, let author, let protected, let key, let reposters, _):
            for u in home[author] ?? [] {
                guard let user = users[u], u == author || !user.relations.muted.contains(author) else { continue }
                out.formUnion(user.home)
            }
            // The homes that show it through a repost (the home rules of a repost: neither the reposter nor the
            // original's author muted, no block, a protected original only to its followers).
            for reposter in reposters where reposter != author {
                for u in home[reposter] ?? [] where u != author {
                    guard let user = users[u], u == reposter || !user.relations.muted.contains(reposter),
                        !user.relations.muted.contains(author), sees(user, u, author: author, protected: protected)
                    else { continue }
                    out.formUnion(user.home)
                }
            }
            for c in (pages[author] ?? []).union(threads[key] ?? []) {
                guard let entry = connections[c], let user = users[entry.userId],
                    sees(user, entry.userId, author: author, protected: protected)
                else { continue }
                out.insert(c)
            }
        case .profileCounts(let userId, _):
            out.formUnion(pages[userId] ?? [])
            out.formUnion(users[userId]?.home ?? [])
        case .notification(let userId, _):
            out.formUnion(users[userId]?.notifications ?? [])
        case .follow, .block, .mute: break
        }
        return out
    }

    /// The home rules: own posts; a followee's posts and reposts unless muted (or the original's author is muted or
    /// blocked); a followee's reply only when it answers the viewer or one of its followees.
    private func homeShows(_ r: LivePostRoute, to user: User, _ u: Int64) -> Bool {
        if r.authorId == u { return true }
        let relations = user.relations
        if relations.muted.contains(r.authorId) || relations.blocked.contains(r.authorId) { return false }
        if r.authorProtected && !relations.followees.contains(r.authorId) { return false }
        if let original = r.originalAuthor, original != u,
            relations.muted.contains(original) || relations.blocked.contains(original)
        {
            return false
        }
        if let to = r.replyToUser, to != u, !relations.followees.contains(to) { return false }
        return true
    }

    /// A post on a page or thread stream: visible to the connection's user (and a repost's original too).
    private func visible(_ r: LivePostRoute, to connection: ConnectionID) -> Bool {
        guard let entry = connections[connection], let user = users[entry.userId] else { return false }
        guard sees(user, entry.userId, author: r.authorId, protected: r.authorProtected) else { return false }
        if let original = r.originalAuthor, original != entry.userId, user.relations.blocked.contains(original) {
            return false
        }
        return true
    }
}
