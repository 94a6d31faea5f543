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
/// are fine there). When all connections are busy, callers wait: async callers are suspended with a continuation
/// and Dispatch callers have their callback queued, so neither a Swift-concurrency thread nor a Dispatch loop queue
/// is ever blocked. The lease bookkeeping (a ``FairLeaseQueue``) is guarded by one `Mutex`.
///
/// Cancelling an awaiting task (its connection closed) makes it leave the queue at once with `CancellationError`,
/// without running its body; a body that started runs to its end (a transaction is never cut midway by a
/// cancellation, so an acknowledged write is never lost to one).
///
/// ## Admission (fair)
/// Urgent callers go first. The others wait per owner key (the async variants' `key`, by default
/// ``DatabaseOwner/key``: the server binds the request's connection; callers without one form one keyless class),
/// the owners with waiters served in turn, each in its order; one key holds at most ``connectionsPerOwner``
/// connections at once. The async variants (request tasks) are bounded: beyond ``maxWaiters`` waiting callers in
/// all, or ``maxWaitersPerOwner`` of their key, they fail at once with ``PostgresError/Kind/overloaded`` (the body
/// never runs). The Dispatch callback variants serve owners that already accepted an effect (a conversation's
/// writer, presence) and bound their own queues; they are keyless and not refused.
public final class DatabasePool: Sendable {
    /// The default number of connections.
    public static let defaultSize = 4
    /// The default bound of the async callers' wait queue.
    public static let defaultMaxWaiters = 1024
    /// The default bound of one owner key's waiting async callers.
    public static let defaultMaxWaitersPerOwner = 64

    private typealias Lease = @Sendable (Result<Int, any Error>) -> Void

    /// A caller waiting for a connection, and since when (monotonic nanoseconds: its wait time when served).
    private struct Waiter {
        let lease: Lease
        let since: UInt64
    }

    private struct State {
        /// Idle connections, waiters, and who holds which connection.
        var queue: FairLeaseQueue<Waiter>
        var closed = false
        /// Told of each lease's wait and each refusal (``setObserver(_:)``); read here, called outside the lock.
        var observer: (any DatabasePoolObserver)?
    }

    /// What the pool holds and who waits, at one instant (one look under the pool's lock).
    public struct Statistics: Sendable, Equatable {
        /// Connections of the pool.
        public var size: Int
        /// Connections leased now (running a caller's body, or being handed on).
        public var inUse: Int
        /// Non-urgent callers waiting (async callers, refused beyond ``DatabasePool/maxWaiters``, and the Dispatch
        /// callback variants' non-urgent callers, which are never refused).
        public var waiting: Int
        /// Urgent callers waiting (served before the bounded queue).
        public var urgentWaiting: Int

        /// A snapshot with these counts.
        public init(size: Int, inUse: Int, waiting: Int, urgentWaiting: Int) {
            self.size = size
            self.inUse = inUse
            self.waiting = waiting
            self.urgentWaiting = urgentWaiting
        }
    }

    private let connections: [PostgresConnection]
    private let state: Mutex<State>
    private let logger: Logger
    /// Numbers the waiters (for cancellation).
    private let waiterNumbers = Atomic<UInt64>(0)
    /// Async callers that may wait for a connection before further ones are refused
    /// (``PostgresError/Kind/overloaded``).
    public let maxWaiters: Int
    /// Async callers of one owner key that may wait before further ones of that key are refused.
    public let maxWaitersPerOwner: Int
    /// Connections one owner key may hold at once.
    public let connectionsPerOwner: Int

    /// Opens `size` connections eagerly.
    /// - Parameters:
    ///   - connectionString: A libpq connection string.
    ///   - size: The number of connections (at least 1).
    ///   - logger: Passed to every connection.
    ///   - maxWaiters: Async callers that may wait for a connection (then ``PostgresError/Kind/overloaded``).
    ///   - maxWaitersPerOwner: Async callers of one owner key that may wait (then
    ///     ``PostgresError/Kind/overloaded``).
    ///   - connectionsPerOwner: Connections one owner key may hold at once; nil: all but one (at least one).
    ///   - timeouts: Every connection's lock, idle-in-transaction and statement limits (none by default).
    /// - Throws: ``PostgresError`` of kind ``PostgresError/Kind/connectionFailed`` if any connection fails; the
    ///   ones already opened are closed.
    public init(
        connectionString: String, size: Int = DatabasePool.defaultSize, logger: Logger,
        maxWaiters: Int = DatabasePool.defaultMaxWaiters,
        maxWaitersPerOwner: Int = DatabasePool.defaultMaxWaitersPerOwner, connectionsPerOwner: Int? = nil,
        timeouts: PostgresSessionTimeouts = .none
    ) throws {
        precondition(size >= 1, "a pool needs at least one connection")
        precondition(maxWaiters >= 0 && maxWaitersPerOwner >= 0, "maxWaiters must not be negative")
        precondition((connectionsPerOwner ?? 1) >= 1, "an owner needs at least one connection")
        self.maxWaiters = maxWaiters
        self.maxWaitersPerOwner = maxWaitersPerOwner
        self.connectionsPerOwner = connectionsPerOwner ?? max(1, size - 1)
        var connections: [PostgresConnection] = []
        for index in 0..<size {
            var connectionLogger = logger
            connectionLogger[metadataKey: StoreLogKey.connectionIndex] = "\(index)"
            let queue = DispatchQueue(label: "switchboard.postgres.\(index)")
            connections.append(
                try PostgresConnection(
                    connectionString: connectionString, queue: queue, logger: connectionLogger, timeouts: timeouts)
            )
        }
        self.connections = connections
        let limits = FairLeaseQueue<Waiter>.Limits(
            maxWaiters: maxWaiters, maxWaitersPerOwner: maxWaitersPerOwner,
            connectionsPerOwner: self.connectionsPerOwner)
        self.state = Mutex(State(queue: FairLeaseQueue(size: size, limits: limits)))
        self.logger = logger
    }

    /// The number of connections.
    public var size: Int { connections.count }

    /// Callers waiting for a connection now (async and callback variants).
    public var waiterCount: Int { state.withLock { $0.queue.waiting + $0.queue.urgentWaiting } }

    /// Connections in use and callers waiting now (for gauges read at a scrape; the lease path never pays for them).
    public var statistics: Statistics {
        state.withLock { state in
            Statistics(
                size: connections.count, inUse: state.queue.inUse, waiting: state.queue.waiting,
                urgentWaiting: state.queue.urgentWaiting)
        }
    }

    /// Sets (or, with nil, removes) the observer told of each lease's wait and each `overloaded` refusal. The last
    /// one set wins; callers already waiting report to the observer set when they are served.
    public func setObserver(_ observer: (any DatabasePoolObserver)?) {
        state.withLock { $0.observer = observer }
    }

    /// Runs `body` with a leased connection on that connection's worker queue.
    /// - Parameters:
    ///   - key: The owner the caller waits as (its turn and its share); nil: the keyless class.
    ///   - urgent: served before every caller waiting without it, and never refused as overloaded (a short write
    ///     someone waits for).
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``PostgresError/Kind/closed`` if the pool is closed.
    @discardableResult
    public func withConnection<T: Sendable>(
        key: UInt64? = DatabaseOwner.key,
        urgent: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        // A task cancelled before its body starts (its connection closed) never runs it: it leaves the queue at
        // once (CancellationError). A body that started runs to its end (no half transaction).
        try Task.checkCancellation()
        let cancelled = CancellationFlag()
        let id = waiterNumbers.wrappingAdd(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                self.run(body, id: id, key: key, bounded: !urgent, urgent: urgent, cancelled: cancelled) {
                    continuation.resume(with: $0)
                }
            }
        } onCancel: {
            cancelled.set()
            self.cancelWaiter(id, key: key, urgent: urgent)
        }
    }

    /// Runs `body` in a transaction (see ``PostgresConnection/transaction(_:)``) on a leased connection.
    @discardableResult
    public func transaction<T: Sendable>(
        key: UInt64? = DatabaseOwner.key,
        urgent: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withConnection(key: key, urgent: urgent) { connection in try connection.transaction(body) }
    }

    /// Callback variant for Dispatch-based callers: runs `body` on a leased connection's worker queue, then calls
    /// `completion` on `queue`. Never blocks the calling queue.
    /// - Parameter urgent: served before every caller waiting without it (a short write that someone is waiting
    ///   for, such as the row a call's end notice waits for), so it waits for at most the work in progress, not
    ///   for the whole queue.
    public func withConnection<T: Sendable>(
        on queue: DispatchQueue,
        urgent: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let id = waiterNumbers.wrappingAdd(1, ordering: .relaxed).newValue
        run(body, id: id, key: nil, bounded: false, urgent: urgent, cancelled: nil) { result in
            queue.async { completion(result) }
        }
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
        let waiters = state.withLock { state -> [Waiter] in
            state.closed = true
            return state.queue.close()
        }
        for waiter in waiters {
            waiter.lease(.failure(PostgresError(kind: .closed, message: "pool closed")))
        }
        for connection in connections {
            connection.queue.sync { connection.close() }
        }
        logger.debug("Database pool closed", metadata: [StoreLogKey.event: "pool-closed"])
    }

    private func run<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T,
        id: UInt64,
        key: UInt64?,
        bounded: Bool,
        urgent: Bool,
        cancelled: CancellationFlag?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        lease(id: id, key: key, bounded: bounded, urgent: urgent) { leased in
            switch leased {
            case .failure(let error):
                completion(.failure(error))
            case .success(let index) where cancelled?.isSet == true:
                // Handed on from the connection's queue: a run of cancelled waiters does not recurse.
                self.connections[index].queue.async {
                    self.release(index)
                    completion(.failure(CancellationError()))
                }
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

    private func lease(id: UInt64, key: UInt64?, bounded: Bool, urgent: Bool, _ grant: @escaping Lease) {
        // Its wait time, reported when it is served (a caller may wait while a connection is idle: its share).
        let waiter = Waiter(lease: grant, since: DispatchTime.now().uptimeNanoseconds)
        let (admission, observer) = state.withLock {
            state -> (FairLeaseQueue<Waiter>.Arrival?, (any DatabasePoolObserver)?) in
            if state.closed { return (nil, nil) }
            let arrival = state.queue.arrive(waiter, id: id, key: key, urgent: urgent, bounded: bounded)
            return (arrival, arrival == .queued ? nil : state.observer)
        }
        switch admission {
        case .leased(let index)?:
            grant(.success(index))
            observer?.leased(urgent: urgent, waitedNanoseconds: 0)
        case .queued?:
            break
        case .overloaded?:
            let message = "too many callers waiting for a database connection"
            grant(.failure(PostgresError(kind: .overloaded, message: message)))
            observer?.refusedOverloaded()
        case nil:
            grant(.failure(PostgresError(kind: .closed, message: "pool closed")))
        }
    }

    /// A waiting task was cancelled: it leaves the queue now (if it still waits) and fails with `CancellationError`.
    private func cancelWaiter(_ id: UInt64, key: UInt64?, urgent: Bool) {
        let waiter = state.withLock { $0.queue.cancel(id, key: key, urgent: urgent) }
        waiter?.lease(.failure(CancellationError()))
    }

    private func release(_ index: Int) {
        let next = state.withLock { state -> (Waiter, urgent: Bool, (any DatabasePoolObserver)?)? in
            guard let (waiter, urgent) = state.queue.release(index) else { return nil }
            return (waiter, urgent, state.observer)
        }
        guard let (waiter, urgent, observer) = next else { return }
        let now = observer == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        waiter.lease(.success(index))
        observer?.leased(urgent: urgent, waitedNanoseconds: now > waiter.since ? now - waiter.since : 0)
    }
}
