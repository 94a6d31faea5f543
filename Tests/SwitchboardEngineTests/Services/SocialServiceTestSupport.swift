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
import Synchronization

@testable import SwitchboardServer

/// Records what a social service hands to live pages (instead of `SocialLive`), as the changes' descriptions
/// (`postCreated(postId: 12)`).
final class RecordingPublisher: SocialPublisher {
    private let log = Mutex<[String]>([])

    func publish(_ change: SocialChange) { log.withLock { $0.append("\(change)") } }

    /// Everything published so far, in order.
    var changes: [String] { log.withLock { $0 } }

    /// Forgets what was published so far.
    func clear() { log.withLock { $0 = [] } }
}

/// Runs one statement against the test database.
func serviceSQL(_ sql: String, _ values: [PostgresData?] = []) async throws {
    try await EngineTestDatabase.shared.pool.withConnection { db in _ = try db.execute(cached: sql, values) }
}

/// Gives `user` a unique handle (posting, liking and following need one); returns it. `protected`: only active
/// followers read its posts.
@discardableResult
func giveHandle(_ user: Int64, protected: Bool = false) async throws -> String {
    let handle = "u\(user)_\(Int.random(in: 1000...9999))"
    try await serviceSQL(
        "UPDATE users SET handle = $2, protected = $3 WHERE id = $1", [.int(user), .text(handle), .bool(protected)])
    return handle
}

/// An active follow of `followee` by `follower`, counters adjusted (as `follow` leaves them).
func serviceFollow(_ follower: Int64, _ followee: Int64) async throws {
    try await serviceSQL(
        "INSERT INTO follows (follower_id, followee_id, state) VALUES ($1, $2, 'active')",
        [.int(follower), .int(followee)]
    )
    try await serviceSQL("UPDATE users SET following_count = following_count + 1 WHERE id = $1", [.int(follower)])
    try await serviceSQL("UPDATE users SET follower_count = follower_count + 1 WHERE id = $1", [.int(followee)])
}

/// `blocker` blocks `blocked` (a row only: the tests that need the follows removed use `FollowService.block`).
func serviceBlock(_ blocker: Int64, _ blocked: Int64) async throws {
    try await serviceSQL("INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)", [.int(blocker), .int(blocked)])
}

/// A post service on the test database with `publisher` for live pages and `clock` for its buckets: posts 2 then one
/// every 10 s, likes 3 then one a second, reposts 2 then one every 10 s; posts of at most 20 characters and 2 photos.
func postService(_ publisher: RecordingPublisher, clock: ManualClock) throws -> PostService {
    var c = SocialPostConfiguration()
    c.maxPostLength = 20
    c.postBurst = 2
    c.postRefillSeconds = 10
    c.likeBurst = 3
    c.likeRefillSeconds = 1
    c.repostBurst = 2
    c.repostRefillSeconds = 10
    return PostService(
        db: try EngineTestDatabase.shared.pool, limits: PostLimits(c), maxPhotos: 2,
        clientIdRule: MessagingConfiguration().clientIdRule, live: publisher, clock: clock)
}

/// The error of type `E` a service call threw (nil when it succeeded or threw something else), for errors whose
/// payload varies (retry times).
func thrown<E: Error>(_ type: E.Type, _ body: () async throws -> Void) async -> E? {
    do {
        try await body()
        return nil
    } catch {
        return error as? E
    }
}
