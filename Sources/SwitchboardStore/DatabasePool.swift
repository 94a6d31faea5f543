//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Dispatch
public import Logging
import Synchronization

/// A fixed-size pool of ``PostgresConnection``s, each confined to its own serial worker queue.
///
/// ## Threading
/// A caller leases a free connection; the body then runs on that connection's worker queue (blocking libpq calls
/// are fine there). When all connections are busy, callers wait in FIFO order: async callers are suspended with
/// a continuation and Dispatch callers have their callback queued, so neither a Swift-concurrency thread nor a
/// Dispatch loop queue is ever blocked. The lease bookkeeping is guarded by one `Mutex`.
///
/// Cancelling the awaiting task does not remove it from the queue: the body still runs once a connection frees up.
public final class DatabasePool: Sendable {
    /// The default number of connections.
    public static let defaultSize = 4

    private typealias Lease = @Sendable (Result<Int, any Error>) -> Void

    private struct State {
        var idle: [Int]
        var waiters: [Lease] = []
        var waiterHead = 0
        var closed = false
    }

    private let connections: [PostgresConnection]
    private let state: Mutex<State>
    private let logger: Logger

    /// Opens `size` connections eagerly.
    /// - Parameters:
    ///   - connectionString: A libpq connection string.
    ///   - size: The number of connections (at least 1).
    ///   - logger: Passed to every connection.
    /// - Throws: ``PostgresError`` of kind ``PostgresError/Kind/connectionFailed`` if any connection fails; the
    ///   ones already opened are closed.
    public init(connectionString: String, size: Int = DatabasePool.defaultSize, logger: Logger) throws {
        precondition(size >= 1, "a pool needs at least one connection")
        var connections: [PostgresConnection] = []
        for index in 0..<size {
            var connectionLogger = logger
            connectionLogger[metadataKey: StoreLogKey.connectionIndex] = "\(index)"
            let queue = DispatchQueue(label: "switchboard.postgres.\(index)")
            connections.append(
                try PostgresConnection(connectionString: connectionString, queue: queue, logger: connectionLogger)
            )
        }
        self.connections = connections
        self.state = Mutex(State(idle: Array((0..<size).reversed())))
        self.logger = logger
    }

    /// The number of connections.
    public var size: Int { connections.count }

    /// Runs `body` with a leased connection on that connection's worker queue.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``PostgresError/Kind/closed`` if the pool is closed.
    @discardableResult
    public func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            self.run(body) { continuation.resume(with: $0) }
        }
    }

    /// Runs `body` in a transaction (see ``PostgresConnection/transaction(_:)``) on a leased connection.
    @discardableResult
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withConnection { connection in try connection.transaction(body) }
    }

    /// Callback variant for Dispatch-based callers: runs `body` on a leased connection's worker queue, then calls
    /// `completion` on `queue`. Never blocks the calling queue.
    public func withConnection<T: Sendable>(
        on queue: DispatchQueue,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        run(body) { result in queue.async { completion(result) } }
    }

    /// Callback variant of ``transaction(_:)``.
    public func transaction<T: Sendable>(
        on queue: DispatchQueue,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        withConnection(on: queue, { connection in try connection.transaction(body) }, completion: completion)
    }

    /// Closes the pool: waiting callers fail with ``PostgresError/Kind/closed``, and each connection is closed after
    /// the work already on its queue. Blocks until then; do not call it from a connection's worker queue.
    public func close() {
        let waiters = state.withLock { state -> [Lease] in
            state.closed = true
            let pending = Array(state.waiters[state.waiterHead...])
            state.waiters.removeAll()
            state.waiterHead = 0
            return pending
        }
        for waiter in waiters {
            waiter(.failure(PostgresError(kind: .closed, message: "pool closed")))
        }
        for connection in connections {
            connection.queue.sync { connection.close() }
        }
        logger.debug("Database pool closed", metadata: [StoreLogKey.event: "pool-closed"])
    }

    private func run<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        lease { leased in
            switch leased {
            case .failure(let error):
                completion(.failure(error))
            case .success(let index):
                let connection = self.connections[index]
                connection.queue.async {
                    let result = Result { try body(connection) }
                    self.release(index)
                    completion(result)
                }
            }
        }
    }

    private func lease(_ waiter: @escaping Lease) {
        let immediate = state.withLock { state -> Result<Int, any Error>? in
            if state.closed { return .failure(PostgresError(kind: .closed, message: "pool closed")) }
            if let index = state.idle.popLast() { return .success(index) }
            state.waiters.append(waiter)
            return nil
        }
        if let immediate { waiter(immediate) }
    }

    private func release(_ index: Int) {
        let next = state.withLock { state -> Lease? in
            guard state.waiterHead < state.waiters.count else {
                state.idle.append(index)
                return nil
            }
            let waiter = state.waiters[state.waiterHead]
            state.waiterHead += 1
            if state.waiterHead > 64, state.waiterHead * 2 > state.waiters.count {
                state.waiters.removeFirst(state.waiterHead)
                state.waiterHead = 0
            }
            return waiter
        }
        next?(.success(index))
    }
}
