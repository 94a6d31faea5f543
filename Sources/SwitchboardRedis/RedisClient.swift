//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Dispatch
import Foundation
public import Logging
import Synchronization

/// A Redis client over one connection, with its own serial queue doing blocking socket I/O (`poll()` timeouts).
///
/// Commands from any thread are appended to a queue of submissions; the I/O queue takes everything waiting (up to
/// `maxBatchCommands`), writes it in one write and reads the replies in order, so concurrent callers are pipelined
/// together. While the client is not connected every command fails at once with `RedisError.unavailable`; past
/// `maxPendingCommands` with `.overloaded`. A command timeout or a broken connection fails the commands in flight
/// (`.timeout`, `.connectionLost`: they may have run) and the client reconnects with exponential backoff and
/// jitter, sending AUTH and SELECT again. Call `close()` when done.
///
/// Completion handlers and the state handler never run on the I/O queue: callbacks on the queue you pass, async
/// calls resume their task.
public final class RedisClient: Sendable {
    /// One caller's commands and where their replies go.
    private struct Submission {
        var commands: [RedisCommand]
        /// Runs on the I/O queue; hops to the caller's queue itself.
        var complete: @Sendable (Result<[RedisValue], RedisError>) -> Void
    }

    /// State shared between callers and the I/O queue.
    private struct Shared {
        var state: RedisConnectionState = .connecting
        /// Submissions not yet taken by the I/O queue.
        var submissions: [Submission] = []
        /// Commands accepted and not yet completed (queued plus in flight).
        var pending = 0
        /// Whether a drain is scheduled or running on the I/O queue.
        var draining = false
    }

    /// State of the I/O queue only.
    private final class IOState: @unchecked Sendable {
        // @unchecked Sendable: every field is read and written on `RedisClient.queue` only (asserted).
        /// The live connection; nil while disconnected. Protected by: the I/O queue.
        var connection: RedisConnection?
        /// Failed connect attempts since the last success. Protected by: the I/O queue.
        var attempt = 0
        /// The write buffer reused for every batch. Protected by: the I/O queue.
        var output: [UInt8] = []
        /// The random generator of the reconnect jitter. Protected by: the I/O queue.
        var random = SystemRandomNumberGenerator()
        /// Counts connections made; a health check chain stops when it changes. Protected by: the I/O queue.
        var generation = 0
        /// Whether a connection was lost and not yet restored (for the "restored" log). Protected by: the I/O queue.
        var outage = false
    }

    /// The configuration (validated in init).
    public let configuration: RedisConfiguration
    private let logger: Logger
    private let queue: DispatchQueue
    private let tls: RedisTLSContext?
    private let backoff: RedisBackoff
    /// Protected by: its mutex.
    private let shared = Mutex(Shared())
    /// Protected by: `queue`.
    private let io = IOState()
    private let stateQueue: DispatchQueue
    private let stateHandler: (@Sendable (RedisConnectionState) -> Void)?

    /// Creates the client and starts connecting at once (commands fail with `.unavailable` until connected).
    /// - Parameters:
    ///   - configuration: where and how; validated here.
    ///   - label: names the I/O queue (`switchboard.redis.<label>`).
    ///   - logger: connection changes are logged at info (recovery) and warning (loss), attempts at debug.
    ///   - stateQueue: where `stateHandler` runs (serial, so the states arrive in order).
    ///   - stateHandler: called with `.connected` and `.disconnected(error)` on every change, and `.closed`.
    /// - Throws: `RedisError.invalidConfiguration` (bad options, unreadable CA file).
    public init(
        configuration: RedisConfiguration, label: String = "client", logger: Logger,
        stateQueue: DispatchQueue? = nil, stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil
    ) throws(RedisError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        self.queue = DispatchQueue(label: "switchboard.redis.\(label)")
        self.tls = configuration.tls ? try RedisTLSContext(configuration: configuration) : nil
        self.backoff = RedisBackoff(configuration)
        self.stateQueue = stateQueue ?? DispatchQueue(label: "switchboard.redis.\(label).state")
        self.stateHandler = stateHandler
        queue.async { [weak self] in self?.connectAttempt() }
    }

    /// The current connection state.
    public var state: RedisConnectionState { shared.withLock { $0.state } }

    /// Commands accepted and not yet answered.
    public var pendingCommands: Int { shared.withLock { $0.pending } }

    // MARK: Commands

    /// Sends one command; `completion` runs on `queue` with its reply.
    ///
    /// An error reply fails with `RedisError.server(message)`.
    public func send(
        _ command: RedisCommand, queue: DispatchQueue,
        completion: @escaping @Sendable (Result<RedisValue, RedisError>) -> Void
    ) {
        submit([command]) { result in
            let single: Result<RedisValue, RedisError> = result.flatMap { values in
                if case .error(let message) = values[0] { return .failure(.server(message)) }
                return .success(values[0])
            }
            queue.async { completion(single) }
        }
    }

    /// Sends one command and returns its reply.
    /// - Throws: `RedisError.server` for an error reply; `.unavailable`, `.overloaded` (not sent);
    ///   `.timeout`, `.connectionLost` (sent, outcome unknown); `.protocolError`, `.closed`.
    public func send(_ command: RedisCommand) async throws(RedisError) -> RedisValue {
        let result: Result<[RedisValue], RedisError> = await withCheckedContinuation { continuation in
            submit([command]) { continuation.resume(returning: $0) }
        }
        let value = try result.get()[0]
        if case .error(let message) = value { throw .server(message) }
        return value
    }

    /// Sends a command built from a name and arguments.
    public func send(_ name: String, _ arguments: any RedisArgument...) async throws(RedisError) -> RedisValue {
        try await send(RedisCommand(name, arguments: arguments))
    }

    /// Sends commands in one write and returns their replies in order; error replies are `.error` values in place.
    /// - Throws: as `send`, for the pipeline as a whole.
    public func pipeline(_ commands: [RedisCommand]) async throws(RedisError) -> [RedisValue] {
        guard !commands.isEmpty else { return [] }
        let result: Result<[RedisValue], RedisError> = await withCheckedContinuation { continuation in
            submit(commands) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends commands in one write; `completion` runs on `queue` with the replies in order.
    public func pipeline(
        _ commands: [RedisCommand], queue: DispatchQueue,
        completion: @escaping @Sendable (Result<[RedisValue], RedisError>) -> Void
    ) {
        guard !commands.isEmpty else {
            queue.async { completion(.success([])) }
            return
        }
        submit(commands) { result in queue.async { completion(result) } }
    }

    /// Runs a script with `EVALSHA`, falling back to `EVAL` (which also loads it) when Redis answers `NOSCRIPT`.
    public func evaluate(
        _ script: RedisScript, keys: [[UInt8]] = [], arguments: [[UInt8]] = []
    ) async throws(RedisError) -> RedisValue {
        do {
            return try await send(script.command(sha: true, keys: keys, arguments: arguments))
        } catch .server(let message) where message.hasPrefix("NOSCRIPT") {
            return try await send(script.command(sha: false, keys: keys, arguments: arguments))
        }
    }

    /// `evaluate` with a completion on `queue`.
    public func evaluate(
        _ script: RedisScript, keys: [[UInt8]] = [], arguments: [[UInt8]] = [], queue: DispatchQueue,
        completion: @escaping @Sendable (Result<RedisValue, RedisError>) -> Void
    ) {
        let evalsha = script.command(sha: true, keys: keys, arguments: arguments)
        send(evalsha, queue: queue) { [self] result in
            if case .failure(.server(let message)) = result, message.hasPrefix("NOSCRIPT") {
                send(script.command(sha: false, keys: keys, arguments: arguments), queue: queue, completion: completion)
            } else {
                completion(result)
            }
        }
    }

    /// Closes the connection and stops reconnecting; commands waiting fail with `RedisError.closed`. Idempotent.
    public func close() {
        let dropped: [Submission]? = shared.withLock { shared in
            if case .closed = shared.state { return nil }
            shared.state = .closed
            let dropped = shared.submissions
            shared.pending -= dropped.reduce(0) { $0 + $1.commands.count }
            shared.submissions = []
            return dropped
        }
        guard let dropped else { return }
        for submission in dropped { submission.complete(.failure(.closed)) }
        queue.async { [io] in
            io.connection?.close()
            io.connection = nil
        }
        notify(.closed)
    }

    // MARK: Submission and the I/O queue

    private func submit(
        _ commands: [RedisCommand], complete: @escaping @Sendable (Result<[RedisValue], RedisError>) -> Void
    ) {
        enum Admission { case accepted(scheduleDrain: Bool), rejected(RedisError) }
        let admission: Admission = shared.withLock { shared in
            switch shared.state {
            case .connected: break
            case .closed: return .rejected(.closed)
            case .connecting, .disconnected: return .rejected(.unavailable)
            }
            guard shared.pending + commands.count <= configuration.maxPendingCommands else {
                return .rejected(.overloaded)
            }
            shared.pending += commands.count
            shared.submissions.append(Submission(commands: commands, complete: complete))
            let schedule = !shared.draining
            shared.draining = true
            return .accepted(scheduleDrain: schedule)
        }
        switch admission {
        case .rejected(let error): complete(.failure(error))
        case .accepted(let schedule): if schedule { queue.async { [self] in drain() } }
        }
    }

    /// Takes the waiting submissions in batches, writes each batch at once and reads its replies in order.
    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        // Bounded: each round takes at least one submission, and submissions stop once the state leaves
        // `.connected`; a busy client yields the queue after 64 batches and continues in a new block.
        for _ in 0..<64 {
            let batch: [Submission] = shared.withLock { shared in
                var taken = 0
                var count = 0
                while taken < shared.submissions.count,
                    taken == 0 || count + shared.submissions[taken].commands.count <= configuration.maxBatchCommands
                {
                    count += shared.submissions[taken].commands.count
                    taken += 1
                }
                let batch = Array(shared.submissions.prefix(taken))
                shared.submissions.removeFirst(taken)
                if batch.isEmpty { shared.draining = false }
                return batch
            }
            if batch.isEmpty { return }
            run(batch)
        }
        queue.async { [self] in drain() }
    }

    private func run(_ batch: [Submission]) {
        guard let connection = io.connection else {
            finish(batch[...], with: .failure(shared.withLock { $0.state } == .closed ? .closed : .unavailable))
            return
        }
        io.output.removeAll(keepingCapacity: true)
        for submission in batch {
            for command in submission.commands { command.encode(into: &io.output) }
        }
        do throws(RedisError) {
            try connection.write(io.output, deadline: .now + configuration.commandTimeout)
            // A large batch is written once; its buffer is not kept while idle.
            if io.output.count > 1 << 20 { io.output = [] }
        } catch {
            finish(batch[...], with: .failure(error))
            lose(error)
            return
        }
        for (index, submission) in batch.enumerated() {
            var replies: [RedisValue] = []
            replies.reserveCapacity(submission.commands.count)
            do throws(RedisError) {
                for _ in submission.commands {
                    replies.append(try connection.readReply(deadline: .now + configuration.commandTimeout))
                }
            } catch {
                finish(batch[index...], with: .failure(error))
                lose(error)
                return
            }
            finish(batch[index...index], with: .success(replies))
        }
    }

    private func finish(_ submissions: ArraySlice<Submission>, with result: Result<[RedisValue], RedisError>) {
        let count = submissions.reduce(0) { $0 + $1.commands.count }
        shared.withLock { $0.pending -= count }
        for submission in submissions { submission.complete(result) }
    }

    /// The connection broke (or timed out): close it, fail what is waiting, reconnect with backoff.
    private func lose(_ error: RedisError) {
        dispatchPrecondition(condition: .onQueue(queue))
        io.connection?.close()
        io.connection = nil
        let waiting: [Submission] = shared.withLock { shared in
            if case .closed = shared.state { return [] }
            shared.state = .disconnected(error)
            let waiting = shared.submissions
            shared.submissions = []
            return waiting
        }
        finish(waiting[...], with: .failure(.unavailable))
        logger.warning(
            "Redis connection lost", metadata: ["redis.server": "\(configuration)", "redis.error": "\(error)"])
        notify(.disconnected(error))
        io.attempt = 0
        io.outage = true
        scheduleReconnect()
    }

    private func scheduleReconnect() {
        dispatchPrecondition(condition: .onQueue(queue))
        let delay = backoff.delay(attempt: io.attempt, random: Double.random(in: 0..<1, using: &io.random))
        let nanoseconds =
            Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in self?.connectAttempt() }
    }

    private func connectAttempt() {
        dispatchPrecondition(condition: .onQueue(queue))
        if case .closed = state { return }
        guard io.connection == nil else { return }
        do throws(RedisError) {
            let connection = try RedisConnection.open(
                configuration, tls: tls, deadline: .now + configuration.connectTimeout)
            let opened: Bool = shared.withLock { shared in
                if case .closed = shared.state { return false }
                shared.state = .connected
                return true
            }
            guard opened else {
                connection.close()
                return
            }
            io.connection = connection
            io.generation += 1
            scheduleHealthCheck(generation: io.generation)
            if io.outage || io.attempt > 0 {
                logger.info("Redis connection restored", metadata: ["redis.server": "\(configuration)"])
            }
            io.outage = false
            io.attempt = 0
            notify(.connected)
        } catch {
            let first: Bool = shared.withLock { shared in
                switch shared.state {
                case .closed: return false
                case .disconnected:
                    shared.state = .disconnected(error)
                    return false
                case .connecting, .connected:
                    shared.state = .disconnected(error)
                    return true
                }
            }
            if case .closed = state { return }
            logger.debug(
                "Redis connect attempt failed",
                metadata: [
                    "redis.server": "\(configuration)", "redis.error": "\(error)", "redis.attempt": "\(io.attempt)",
                ])
            if first {
                logger.warning(
                    "Redis unavailable", metadata: ["redis.server": "\(configuration)", "redis.error": "\(error)"])
                notify(.disconnected(error))
            }
            io.attempt += 1
            scheduleReconnect()
        }
    }

    /// Pings an idle connection every `healthCheckInterval` while it is the current one, so a dead server is
    /// noticed without a command (the PING fails and `lose` reports it).
    private func scheduleHealthCheck(generation: Int) {
        let interval = configuration.healthCheckInterval
        let nanoseconds =
            Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, io.generation == generation, io.connection != nil else { return }
            if pendingCommands == 0 { submit([RedisCommand("PING")]) { _ in } }
            scheduleHealthCheck(generation: generation)
        }
    }

    private func notify(_ state: RedisConnectionState) {
        guard let stateHandler else { return }
        stateQueue.async { stateHandler(state) }
    }
}
