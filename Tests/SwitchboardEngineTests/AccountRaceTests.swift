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
import Testing

@testable import SwitchboardServer

/// Account deletion and suspension against what an account does at the same moment (issue 37): each test forces
/// the interleaving that used to leave a deleted account's message live or a suspended account's connection open.
@Suite("Account races (the test database)")
struct AccountRaceTests {
    /// A messaging engine on the test database (its replies through completions).
    func hub() throws -> MessageHub {
        MessageHub(
            registry: SessionRegistry(), outbox: FakeOutbox(), clock: ManualClock(),
            pool: try EngineTestDatabase.shared.pool, configuration: MessagingConfiguration(),
            metrics: ServerMetrics(loopCount: 1), logger: testLogger())
    }

    /// Two friends with a direct conversation: (ann, bob, the conversation).
    func friends() async throws -> (Int64, Int64, Int64) {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("Ann"), try await db.user("Bob"))
        try await db.befriend(ann, bob)
        let direct = try await db.pool.withConnection { db in try MessageStore.directConversation(db, ann, bob) }
        return (ann, bob, direct)
    }

    static func text(_ body: String) -> WriteRequest.Action {
        .send(kind: .text, body: body, clientId: nil, voiceId: nil)
    }

    /// The account's messages that are not tombstones.
    func liveMessages(of userId: Int64) async throws -> Int64 {
        try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(
                cached: "SELECT count(*) FROM messages WHERE sender_id = $1 AND NOT sender_deleted", [.int(userId)]
            ).decodeFirst(Int64.self) ?? -1
        }
    }

    /// Marks the deletion job done, so that no server sharing the database works on it.
    func settle(_ userId: Int64) async throws {
        try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(
                cached: "UPDATE account_deletions SET finished_at = now() WHERE user_id = $1", [.int(userId)])
        }
    }

    /// (a) A send of one of the account's sessions that reaches its writer after the deletion's `messages` step
    /// (its connection is not closed yet) used to commit a live message of the deleted account. The batch now locks
    /// its senders' accounts and finds this one deleted: refused, and nothing live is left.
    @Test func aMessageArrivingAfterTheDeletionsMessageStepIsRefused() async throws {
        let pool = try EngineTestDatabase.shared.pool
        let hub = try hub()
        let (ann, _, direct) = try await friends()
        _ = try await MessageHubTests.write(hub, direct, actor: ann, Self.text("before")).get()
        #expect(try await pool.transaction { db in try AccountDeletionRepository.request(db, userId: ann) } != nil)
        // The job up to and including the step that makes the account's messages tombstones.
        for step in MessagingAccountData.deletionSteps.sorted(by: { $0.order < $1.order }) where step.order <= 10 {
            while try await pool.withConnection({ db in
                try AccountDeletionRepository.runBatch(db, userId: ann, step: step, limit: 500)
            })?.changed ?? 0 > 0 {}
        }
        #expect(try await liveMessages(of: ann) == 0)
        let late = await MessageHubTests.write(hub, direct, actor: ann, Self.text("after the step"))
        #expect(throws: ServiceError.accountDeleted) { try late.get() }
        #expect(try await liveMessages(of: ann) == 0)
        try await settle(ann)
    }

    /// Runs account deletion's first transaction for `userId` on a connection of its own and holds it open (the
    /// account's row locked, marked deleted, not committed) while `write` runs, until `write` is seen waiting for
    /// that transaction's lock (a condition, polled; the bound only matters when it never comes); then commits it
    /// and returns what `write` returned.
    func whileDeleting<T: Sendable>(
        _ userId: Int64, _ write: @escaping @Sendable () async -> T
    ) async throws -> T {
        let url = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_DATABASE_URL"] ?? ""
        let deletionPool = try DatabasePool(connectionString: url, size: 1, logger: testLogger(), maxWaiters: 4)
        defer { deletionPool.close() }
        // The check for the waiting write on a connection of its own: on the shared pool it could queue behind the
        // write it looks for (the shared pool busy with other suites), until the statement timeout ended that write.
        let observer = try DatabasePool(connectionString: url, size: 1, logger: testLogger(), maxWaiters: 4)
        defer { observer.close() }
        let commit = DispatchSemaphore(value: 0)
        let opened = Barrier()
        async let deletion: Int32 = deletionPool.transaction { db in
            _ = try AccountDeletionRepository.request(db, userId: userId)
            let pid = try db.execute(cached: "SELECT pg_backend_pid()").decodeFirst(Int32.self) ?? 0
            Task { await opened.arrive(passing: pid) }
            commit.wait()  // open, its row lock held, until the test commits it
            return pid
        }
        let deletionPid = await opened.arrived()
        opened.release()
        async let written = write()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let waiting = try await observer.withConnection { db in
                try db.execute(
                    cached: """
                        SELECT count(*) FROM pg_stat_activity WHERE $1::bigint = ANY(pg_blocking_pids(pid)::bigint[])
                        """,
                    [.int(Int64(deletionPid))]
                ).decodeFirst(Int64.self) ?? 0
            }
            if waiting > 0 { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        commit.signal()
        #expect(try await deletion == deletionPid)
        return await written
    }

    /// (a) The deletion's first transaction holds the account's row while it marks it deleted; a batch that locks
    /// the account then waits for it and, once the deletion committed, finds the account deleted and refuses the
    /// message (it used to commit it after the deletion, live until the job's `messages` step came by).
    @Test(.timeLimit(.minutes(10)))
    func aSendWaitingForTheDeletionsLockIsRefusedOnceItCommits() async throws {
        let hub = try hub()
        let (ann, _, direct) = try await friends()
        let sent = try await whileDeleting(ann) {
            await MessageHubTests.write(hub, direct, actor: ann, Self.text("during the deletion"))
        }
        #expect(throws: ServiceError.accountDeleted) { try sent.get() }
        #expect(try await liveMessages(of: ann) == 0)
        try await settle(ann)
    }

    /// Posts take the same lock in their handle check: a post waiting for the deletion is refused once it commits
    /// (`handle_required`: the handle is freed), and the account has no post.
    @Test(.timeLimit(.minutes(10)))
    func aPostWaitingForTheDeletionsLockIsRefusedOnceItCommits() async throws {
        let ann = try await EngineTestDatabase.shared.user("ann")
        try await giveHandle(ann)
        let posts = try postService(RecordingPublisher(), clock: ManualClock())
        let refused = try await whileDeleting(ann) {
            await thrown(PostError.self) {
                _ = try await posts.create(
                    Caller(userId: ann), text: "during the deletion", replyTo: nil, voiceClipId: nil, photoIds: nil,
                    clientId: nil)
            }
        }
        #expect(refused == .handleRequired)
        let stored = try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(cached: "SELECT count(*) FROM posts WHERE author_id = $1", [.int(ann)])
                .decodeFirst(Int64.self)
        }
        #expect(stored == 0)
        try await settle(ann)
    }

    /// Every other write of a request takes the same lock through the database seam (`ActingAccount`): a moment
    /// waiting for the deletion is refused once it commits (`not_authenticated`), and the account has no moment.
    @Test(.timeLimit(.minutes(10)))
    func aMomentWaitingForTheDeletionsLockIsRefusedOnceItCommits() async throws {
        let ann = try await EngineTestDatabase.shared.user("ann")
        let photo = try await servicePhoto(owner: ann)
        let moments = MomentService(
            db: try EngineTestDatabase.shared.pool, limits: MomentConfiguration(),
            posting: SharedRateLimiter(capacity: 10, refillPerSecond: 1),
            liking: SharedRateLimiter(capacity: 10, refillPerSecond: 1),
            clientIdRule: MessagingConfiguration().clientIdRule, clock: ManualClock())
        let refused = try await whileDeleting(ann) {
            await ActingAccount.$userId.withValue(ann) {
                await thrown(MomentError.self) {
                    _ = try await moments.create(
                        Caller(userId: ann), photoIds: [photo], caption: "during the deletion", clientId: nil)
                }
            }
        }
        #expect(refused?.wire.code == .notAuthenticated)
        let stored = try await EngineTestDatabase.shared.integer(
            "SELECT count(*) FROM moments WHERE owner_id = $1", ann)
        #expect(stored == 0)
        try await settle(ann)
    }

    /// The seam itself: a write acting for a deleted account runs nothing and answers `not_authenticated`; without
    /// an acting account (a background job), or for a live one, the body runs.
    @Test func aWriteActingForADeletedAccountRunsNothing() async throws {
        let db = EngineTestDatabase.shared
        let (live, gone) = (try await db.user("live"), try await db.user("gone"))
        try await db.run("UPDATE users SET deleted_at = now() WHERE id = $1", gone)
        let pool: any Database = try db.pool
        let ran = Mutex(0)
        let refused = await ActingAccount.$userId.withValue(gone) {
            await thrown(DatabaseError.self) { try await pool.write { _ in ran.withLock { $0 += 1 } } }
        }
        #expect(refused.map { ServiceError.from($0).code } == .notAuthenticated)
        #expect(ran.withLock { $0 } == 0)
        try await ActingAccount.$userId.withValue(live) { try await pool.write { _ in ran.withLock { $0 += 1 } } }
        try await pool.write { _ in ran.withLock { $0 += 1 } }
        #expect(ran.withLock { $0 } == 2)
    }

    /// Through the protocol: a connection's requests act for its account. Its account deleted under it (the
    /// connection not closed yet), `profile.update` is refused and the deleted account's stub keeps its name.
    @Test func aRequestOfAConnectionWhoseAccountWasDeletedIsRefused() async throws {
        let h = try Harness()
        defer { h.close() }
        let me = try await h.authenticate()
        try await EngineTestDatabase.shared.run(
            "UPDATE users SET deleted_at = now(), display_name = 'Deleted' WHERE id = $1", me.userId)
        let id = await h.send("profile.update", ["display_name": "Back again"])
        #expect(errorCode(await h.reply(to: id)) == "not_authenticated")
        let name = try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(cached: "SELECT display_name FROM users WHERE id = $1", [.int(me.userId)])
                .decodeFirst(String.self)
        }
        #expect(name == "Deleted")
    }

    /// (b) A connection whose `authenticate` had checked the account (not suspended) when the suspension committed
    /// and swept the account's connections, and registered itself only after the sweep, used to stay open. Forced:
    /// the authentication stops between its check and its registration while the suspension commits and sweeps.
    @Test(.timeLimit(.minutes(10)))
    func aConnectionAuthenticatingAsItsAccountIsSuspendedIsClosed() async throws {
        let checked = Barrier()
        let h = try Harness(poolSize: 2) { $0.authenticationCheckedForTesting = { await checked.arrive() } }
        defer { h.close() }
        let user = try await EngineTestDatabase.shared.user("suspended")
        let token = SessionToken.generate()
        _ = try await h.pool.withConnection { db in
            try SessionRepository.insert(db, userId: user, tokenHash: token.hash, device: "phone")
        }
        await h.send("authenticate", ["token": token.string])
        _ = await checked.arrived()  // checked: not suspended; not registered yet
        // `admin.suspend`: the suspension commits, then this node's connections of the account are swept.
        _ = try await h.pool.transaction { db in try ModerationRepository.setSuspended(db, user, true) }
        let services = try #require(h.server.services)
        services.deliveries.suspend(userId: user)
        checked.release()
        let deadline = Date().addingTimeInterval(120)
        var codes: [UInt16] = []
        while codes.isEmpty && Date() < deadline {
            codes = await h.port { $0.closeCodes }
            if codes.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(codes == [ModerationCloseCode.accountSuspended])
        let events = await h.messages().compactMap { $0["ev"] as? String }
        #expect(events.contains("account.suspended"))
        // The authentication itself was answered (it had passed its check).
        #expect(await h.replies().first?["ok"] != nil)
    }
}

/// A point one task stops at until the test releases it: `arrive` (the task, with a value for the test) waits for
/// `release`; `arrived` (the test) waits until the task is there and returns its value.
private final class Barrier: Sendable {
    private struct State {
        var value: Int32?
        var released = false
        var arrival: CheckedContinuation<Int32, Never>?
        var departure: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// Stops here (once) until `release()`.
    func arrive(passing value: Int32 = 0) async {
        await withCheckedContinuation { (departure: CheckedContinuation<Void, Never>) in
            let (arrival, go) = state.withLock { s -> (CheckedContinuation<Int32, Never>?, Bool) in
                s.value = value
                let arrival = s.arrival
                s.arrival = nil
                if !s.released { s.departure = departure }
                return (arrival, s.released)
            }
            arrival?.resume(returning: value)
            if go { departure.resume() }
        }
    }

    /// Waits until a task has arrived; its value.
    func arrived() async -> Int32 {
        await withCheckedContinuation { (arrival: CheckedContinuation<Int32, Never>) in
            let value = state.withLock { s -> Int32? in
                if s.value == nil { s.arrival = arrival }
                return s.value
            }
            if let value { arrival.resume(returning: value) }
        }
    }

    /// Lets the task that arrived (or arrives later) go on.
    func release() {
        let departure = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.released = true
            let departure = s.departure
            s.departure = nil
            return departure
        }
        departure?.resume()
    }
}
