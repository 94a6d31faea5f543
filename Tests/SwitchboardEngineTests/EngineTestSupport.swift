//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import Synchronization
import Testing

@testable import SwitchboardServer

#if canImport(Glibc)
import Glibc
#endif

extension OutboxBatch {
    /// Every delivery as a (connection, item) pair, in order.
    var entries: [(ConnectionID, OutboxItem)] {
        var result: [(ConnectionID, OutboxItem)] = []
        result.reserveCapacity(count)
        forEachItem { item, ids in for id in ids { result.append((id, item)) } }
        return result
    }
}

/// An outbox that records what the engines deliver, per connection, instead of writing to sockets.
final class FakeOutbox: Outbox, Sendable {
    private let log = Mutex<[(ConnectionID, OutboxItem)]>([])

    /// Records the batch; a run of messages (`.messages`) is recorded as the `.message` items it stands for.
    func post(_ batch: OutboxBatch) {
        var entries: [(ConnectionID, OutboxItem)] = []
        for (connection, item) in batch.entries {
            if case .messages(let messages) = item {
                for message in messages { entries.append((connection, .message(message))) }
            } else {
                entries.append((connection, item))
            }
        }
        log.withLock { $0 += entries }
    }

    /// Everything delivered so far, in order.
    var delivered: [(ConnectionID, OutboxItem)] { log.withLock { $0 } }

    /// The items delivered to one connection, in order.
    func items(to connection: ConnectionID) -> [OutboxItem] {
        delivered.filter { $0.0 == connection }.map(\.1)
    }

    /// The JSON events (events, ephemeral events and messages) delivered to a connection, decoded, in order.
    func events(to connection: ConnectionID) -> [[String: Any]] {
        items(to: connection).compactMap { item in
            let bytes: [UInt8]
            switch item {
            case .event(let b), .ephemeral(let b, _): bytes = b
            case .social(let d): bytes = d.bytes
            case .message(let m): bytes = m.payload
            case .reply, .revoke, .reconnect, .suspend, .close, .messages: return nil  // `post` records no `.messages`
            }
            return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
        }
    }

    /// The events named `name` delivered to a connection.
    func events(_ name: String, to connection: ConnectionID) -> [[String: Any]] {
        events(to: connection).filter { $0["ev"] as? String == name }
    }

    /// The replies delivered to a connection, in order.
    func replies(to connection: ConnectionID) -> [EngineReply] {
        items(to: connection).compactMap { if case .reply(let r) = $0 { r } else { nil } }
    }

    /// Forgets what was delivered.
    func clear() { log.withLock { $0 = [] } }

    /// Waits (bounded) until `condition` holds; returns whether it did.
    @discardableResult
    func wait(timeout: Double = 10, until condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}

/// A clock that only moves when the test says so; its timers fire (on their queues) once it has moved past
/// their deadlines.
final class ManualClock: EngineClock, Sendable {
    private struct Scheduled {
        let deadline: UInt64
        let queue: DispatchQueue
        let fire: @Sendable () -> Void
        let timer: ManualTimer
    }

    private struct State {
        var now: UInt64 = 1_000_000_000_000
        var scheduled: [Scheduled] = []
    }

    private let state = Mutex(State())

    func now() -> UInt64 { state.withLock { $0.now } }

    func schedule(at deadline: UInt64, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void)
        -> any EngineTimer
    {
        let timer = ManualTimer()
        let due = state.withLock { s -> Bool in
            if deadline <= s.now { return true }
            s.scheduled.append(Scheduled(deadline: deadline, queue: queue, fire: fire, timer: timer))
            return false
        }
        if due { queue.async { if !timer.isCancelled { fire() } } }
        return timer
    }

    /// Moves time on by `seconds`; the timers now due run on their queues.
    func advance(by seconds: Double) {
        let due = state.withLock { s -> [Scheduled] in
            s.now += UInt64(seconds * 1e9)
            let now = s.now
            let due = s.scheduled.filter { $0.deadline <= now }
            s.scheduled.removeAll { $0.deadline <= now }
            return due.sorted { $0.deadline < $1.deadline }
        }
        for entry in due { entry.queue.async { if !entry.timer.isCancelled { entry.fire() } } }
    }

    /// Timers waiting (not cancelled).
    var pendingTimers: Int { state.withLock { $0.scheduled.count { !$0.timer.isCancelled } } }
}

final class ManualTimer: EngineTimer, Sendable {
    private let cancelled = Atomic<Bool>(false)
    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

/// Waits until everything queued on `queue` so far has run.
func settle(_ queue: DispatchQueue) async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { c.resume() } }
}

/// The test database: the test command's PostgreSQL (`SWITCHBOARD_TEST_DATABASE_URL`), else an embedded one
/// in a temporary folder; migrated once.
final class EngineTestDatabase: @unchecked Sendable {
    // @unchecked Sendable: initialised once, immutable after.
    static let shared = EngineTestDatabase()
    let database: DatabaseRuntime?
    let error: String?

    private init() {
        var configuration = ServerConfiguration()
        if let url = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_DATABASE_URL"], !url.isEmpty {
            configuration.databaseURL = url
        } else {
            configuration.dataDirectory =
                FileManager.default.temporaryDirectory.appendingPathComponent("sb-engine-\(getpid())").path
        }
        configuration.databasePoolSize = 3
        // No lock timeout: the engine tests force interleavings by holding a row lock across test steps (the account
        // races hold a deletion open until a send is seen waiting for it), and under the test command's parallel load
        // those steps can take longer than the production default of 2 s. The timeout itself is tested with pools
        // of its own (DatabaseTimeoutsTests, PostgresSessionTimeoutsTests).
        configuration.databaseLockTimeout = 0
        var logger = Logger(label: "engine-tests")
        logger.logLevel = .warning
        do {
            database = try DatabaseRuntime.open(configuration: configuration, logger: logger)
            error = nil
            if configuration.databaseURL == nil { atexit { EngineTestDatabase.shared.database?.close() } }
        } catch {
            database = nil
            self.error = "\(error)"
        }
    }

    var pool: DatabasePool {
        get throws {
            guard let database else { throw EngineTestError.noDatabase(error ?? "") }
            return database.pool
        }
    }

    /// A new user (unique phone); returns its id.
    func user(_ name: String) async throws -> Int64 {
        let phone = "+1555\(Int.random(in: 1_000_000...9_999_999))\(Int.random(in: 100...999))"
        return try await pool.withConnection { db in
            guard
                let id = try db.execute(
                    cached: "INSERT INTO users (phone, password_hash, display_name) VALUES ($1, 'x', $2) RETURNING id",
                    [.text(phone), .text(name)]
                ).decodeFirst(Int64.self)
            else { throw EngineTestError.noRow }
            return id
        }
    }

    /// Makes two users friends.
    func befriend(_ a: Int64, _ b: Int64) async throws {
        try await pool.withConnection { db in
            try db.execute(
                cached: "INSERT INTO friendships (user_low, user_high) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [.int(min(a, b)), .int(max(a, b))])
        }
    }
}

enum EngineTestError: Error {
    case noDatabase(String)
    case noRow
}

/// A quiet logger.
func testLogger() -> Logger {
    var logger = Logger(label: "engine-tests")
    logger.logLevel = .critical
    return logger
}

/// A device on a new connection.
func device(user: Int64, session: Int64) -> Device {
    Device(sessionId: session, userId: user, connection: ConnectionID.next())
}

/// A new session id that no other test uses.
func newSession() -> Int64 { Int64(ConnectionID.next().rawValue) + 1_000_000_000 }
