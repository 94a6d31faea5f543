//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardLoadKit
import SwitchboardTransport

/// Runs `body(i)` for i in 0..<count with at most `limit` running at once.
func forEach(_ count: Int, limit: Int, _ body: @escaping @Sendable (Int) async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(limit, count) {
            let i = next
            group.addTask { await body(i) }
            next += 1
        }
        while await group.next() != nil {
            if next < count {
                let i = next
                group.addTask { await body(i) }
                next += 1
            }
        }
    }
}

/// The users, friendships and conversations of a run, created through the protocol as apps would.
struct Population {
    /// Users to register.
    var users: Int
    /// Each user befriends the next `friends` users (a ring), and has a direct conversation with each.
    var friends: Int
    /// Groups, of these sizes in turn, laid over consecutive users; the first member creates it (after
    /// befriending the members it was not friends with).
    var groups: Int
    var groupSizes: [Int]
    /// Concurrent registrations (each is one Argon2id hash on the server).
    var concurrency: Int

    struct Result {
        var clients: [SwitchboardClient]
        var users: [LoadUser]
        var conversations: [LoadConversation]
        var baselines: [Int64: Int64]
        var registerSeconds: Double
        var seconds: Double
        var friendships: Int
    }

    /// Registers the users (each client stays connected and authenticated), befriends, creates conversations.
    func create(makeClient: @escaping @Sendable (Int) throws -> SwitchboardClient) async throws -> Result {
        let started = Date()
        let count = users
        let base = Int.random(in: 1_000_000...8_000_000)
        let made = Locked([SwitchboardClient?](repeating: nil, count: count))
        let registered = Locked([LoadUser?](repeating: nil, count: count))
        let failures = Locked([String]())
        let retries = Locked(0)
        await forEach(count, limit: concurrency) { i in
            do {
                let client = try makeClient(i)
                let phone = "+1555\(base + i)"
                let password = "lt harbor lantern \(i % 7)"
                var attempt = 0
                while true {
                    attempt += 1
                    do {
                        let credentials = try await client.register(
                            phone: phone, password: password, displayName: "load \(i)", device: "switchboard-load")
                        registered.withLock {
                            $0[i] = LoadUser(
                                index: i, userId: credentials.userId, phone: phone, password: password,
                                token: credentials.sessionToken)
                        }
                        made.withLock { $0[i] = client }
                        return
                    } catch {
                        guard case .server(let e)? = error as? SwitchboardClientError, e.code == "unavailable",
                            attempt < 1000
                        else { throw error }
                        retries.withLock { $0 += 1 }
                        try? await Task.sleep(nanoseconds: 20_000_000)
                    }
                }
            } catch {
                failures.withLock { $0.append("register #\(i): \(error)") }
            }
        }
        let registerSeconds = Date().timeIntervalSince(started)
        if let first = failures.withLock({ $0.first }) { throw SetupError(description: first) }
        let clients = made.withLock { $0.map { $0! } }
        let all = registered.withLock { $0.map { $0! } }
        note(
            String(
                format: "setup: %d users registered in %.1f s (%.0f/s, %d busy retries)", count, registerSeconds,
                Double(count) / registerSeconds, retries.withLock { $0 }))

        // Friendships: the ring, plus each group creator with its members.
        var pairs = Set<Pair>()
        var ring: [Pair] = []
        for i in 0..<count {
            for d in 1...max(1, min(friends, count - 1)) {
                let pair = Pair(i, (i + d) % count)
                if pairs.insert(pair).inserted { ring.append(pair) }
            }
        }
        var groupMembers: [[Int]] = []
        var offset = 0
        for g in 0..<groups {
            let size = min(groupSizes[g % groupSizes.count], count)
            let members = (0..<size).map { (offset + $0) % count }
            offset = (offset + size) % count
            groupMembers.append(members)
            for m in members.dropFirst() { pairs.insert(Pair(members[0], m)) }
        }
        let pairList = Array(pairs)
        let ringPairs = ring
        let groups = groupMembers
        await forEach(pairList.count, limit: concurrency * 2) { k in
            let pair = pairList[k]
            do {
                let result = try await clients[pair.a].requestFriend(userId: all[pair.b].userId)
                if let request = result.request {
                    _ = try await clients[pair.b].acceptFriendRequest(request.requestId)
                }
            } catch {
                failures.withLock { $0.append("befriend \(pair.a)-\(pair.b): \(error)") }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw SetupError(description: first) }

        // Conversations: direct ones along the ring, then the groups.
        let found = Locked([LoadConversation?](repeating: nil, count: ringPairs.count + groups.count))
        let baselines = Locked([Int64: Int64]())
        await forEach(ringPairs.count, limit: concurrency * 2) { k in
            let pair = ringPairs[k]
            do {
                let c = try await clients[pair.a].directConversation(with: all[pair.b].userId)
                found.withLock {
                    $0[k] = LoadConversation(id: c.conversationId, members: [pair.a, pair.b], isGroup: false)
                }
                baselines.withLock { $0[c.conversationId] = c.lastSeq }
            } catch {
                failures.withLock { $0.append("conversations.direct \(pair.a)-\(pair.b): \(error)") }
            }
        }
        await forEach(groups.count, limit: concurrency) { g in
            let members = groups[g]
            do {
                let c = try await clients[members[0]].createGroup(
                    name: "load group \(g)", memberIds: members.dropFirst().map { all[$0].userId })
                found.withLock {
                    $0[ringPairs.count + g] = LoadConversation(id: c.conversationId, members: members, isGroup: true)
                }
                baselines.withLock { $0[c.conversationId] = c.lastSeq }
            } catch {
                failures.withLock { $0.append("groups.create \(g): \(error)") }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw SetupError(description: first) }
        let seconds = Date().timeIntervalSince(started)
        note(
            String(
                format: "setup: %d friendships, %d direct conversations, %d groups; %.1f s in all", pairList.count,
                ringPairs.count, groups.count, seconds))
        return Result(
            clients: clients, users: all, conversations: found.withLock { $0.map { $0! } },
            baselines: baselines.withLock { $0 }, registerSeconds: registerSeconds, seconds: seconds,
            friendships: pairList.count)
    }

    /// An unordered pair of user indexes.
    struct Pair: Hashable {
        let a: Int
        let b: Int
        init(_ x: Int, _ y: Int) {
            a = min(x, y)
            b = max(x, y)
        }
    }
}
