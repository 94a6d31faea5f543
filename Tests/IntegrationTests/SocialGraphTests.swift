//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardCore
import SwitchboardProtocol
import SwitchboardServer
import SwitchboardStore
import Testing

/// Runs `body` in a transaction on a connection of the test database and returns its value.
private func graphSQL<T: Sendable>(_ database: Database, _ body: @escaping @Sendable (PostgresConnection) throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = Unchecked(NSMutableArray())
    database.pool.withConnection(
        on: DispatchQueue(label: "test.graph.sql"), { db in try db.transaction { db in try body(db) } },
        completion: { r in
            switch r {
            case .success(let value): box.value.add(Unchecked(value))
            case .failure(let error): box.value.add("\(error)")
            }
            done.signal()
        })
    done.wait()
    if let value = box.value.firstObject as? Unchecked<T> { return value.value }
    throw TestSQLError(description: "\(box.value.firstObject ?? "no result")")
}

/// A fresh handle-shaped suffix (the suites share one database).
private func tag() -> String { String(UInt32.random(in: 0...UInt32.max), radix: 36) }

/// Inserts a user row straight into the store; its id.
private func insertUser(_ db: PostgresConnection, _ name: String, handle: String?, protected: Bool = false) throws -> Int64 {
    let id = try db.execute(
            cached: "INSERT INTO users (phone, password_hash, display_name, handle, protected) VALUES ($1, 'x', $2, $3, $4) RETURNING id",
            [.text(freshPhone() + tag()), .text(name), handle.map(PostgresData.text), .bool(protected)]
        ).decodeFirst(Int64.self)
    return try #require(id)
}

@Suite("Social graph store helpers")
struct SocialGraphStoreTests {
    @Test func handleRules() {
        #expect(Handle.validate("ann_1") == nil)
        #expect(Handle.validate("Ann") == nil)
        #expect(Handle.validate("ab") == .invalid)
        #expect(Handle.validate(String(repeating: "a", count: 31)) == .invalid)
        #expect(Handle.validate(String(repeating: "a", count: 30)) == nil)
        #expect(Handle.validate("ann-1") == .invalid)
        #expect(Handle.validate("änn") == .invalid)
        #expect(Handle.validate("@ann") == .invalid)
        #expect(Handle.validate("Admin") == .reserved)
        #expect(Handle.validate("live") == .reserved)
    }

    @Test func visibilityBlocksMutesAndLookups() throws {
        let (server, _, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let t = tag()
        try graphSQL(database) { db in
            let ann = try insertUser(db, "Ann", handle: "Ann_\(t)")
            let bob = try insertUser(db, "Bob", handle: "bob_\(t)", protected: true)
            let cat = try insertUser(db, "Cat", handle: nil)
            let dan = try insertUser(db, "Dan", handle: "dan_\(t)")

            // Public author: anyone; protected author: self and active followers only.
            #expect(try SocialGraphRepository.canSeePosts(db, viewer: bob, author: ann))
            #expect(try SocialGraphRepository.canSeePosts(db, viewer: bob, author: bob))
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: bob)))
            try db.execute(cached: "INSERT INTO follows (follower_id, followee_id, state) VALUES ($1, $2, 'pending')", [.int(ann), .int(bob)])
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: bob)))
            try db.execute(cached: "UPDATE follows SET state = 'active' WHERE follower_id = $1 AND followee_id = $2", [.int(ann), .int(bob)])
            #expect(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: bob))
            #expect(try SocialGraphRepository.activeFolloweeIds(db, of: ann) == [bob])
            #expect(try SocialGraphRepository.activeFolloweeIds(db, of: bob).isEmpty)

            // Blocks either way hide everything, even a public author.
            try db.execute(cached: "INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)", [.int(dan), .int(ann)])
            #expect(try SocialGraphRepository.isBlockedEitherWay(db, ann, dan))
            #expect(try SocialGraphRepository.isBlockedEitherWay(db, dan, ann))
            #expect(!(try SocialGraphRepository.isBlockedEitherWay(db, ann, bob)))
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: dan)))
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: dan, author: ann)))
            #expect(try SocialGraphRepository.blockedEitherWayIds(db, of: ann) == [dan])
            #expect(try SocialGraphRepository.blockedEitherWayIds(db, of: dan) == [ann])
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: 0)))

            try db.execute(cached: "INSERT INTO mutes (muter_id, muted_id) VALUES ($1, $2), ($1, $3)", [.int(bob), .int(ann), .int(cat)])
            #expect(try SocialGraphRepository.mutedIds(db, of: bob) == [ann, cat])
            #expect(try SocialGraphRepository.mutedIds(db, of: ann).isEmpty)

            // Handles: case-insensitive lookup, only well-formed strings, deleted accounts absent.
            let ids = try SocialGraphRepository.userIds(db, handles: ["ann_\(t)", "BOB_\(t)", "nobody_\(t)", "x'y", "cat"])
            #expect(ids == ["ann_\(t)": ann, "bob_\(t)": bob])
            #expect(try SocialGraphRepository.hasHandle(db, ann))
            #expect(!(try SocialGraphRepository.hasHandle(db, cat)))
            try db.execute(cached: "UPDATE users SET deleted_at = now() WHERE id = $1", [.int(dan)])
            #expect(try SocialGraphRepository.userIds(db, handles: ["dan_\(t)"]).isEmpty)
            #expect(!(try SocialGraphRepository.hasHandle(db, dan)))

            let users = try SocialGraphRepository.socialUsers(db, ids: [ann, bob, cat, ann, -5])
            #expect(users.count == 3)
            #expect(users[ann] == SocialUser(userId: ann, displayName: "Ann", handle: "Ann_\(t)", protected: false))
            #expect(users[bob]?.protected == true)
            #expect(users[cat]?.handle == nil)
            #expect(try SocialGraphRepository.socialUsers(db, ids: []).isEmpty)
        }
    }

    @Test func socialUserEncodesANullHandle() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try encoder.encode(SocialUser(userId: 7, displayName: "Cat", handle: nil, protected: false)), as: UTF8.self)
        #expect(json.contains("\"handle\":null"))
        #expect(json.contains("\"user_id\":7"))
    }
}
