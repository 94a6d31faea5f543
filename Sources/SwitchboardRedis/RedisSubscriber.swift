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

#if canImport(Glibc)
import Glibc
#endif

/// A dedicated Redis connection in pub/sub mode, on its own thread.
///
/// `subscribe` and `unsubscribe` may be called from any thread at any time: they record the wanted channels under a
/// mutex and wake the thread through a pipe; only the thread touches the connection (hiredis' reader and the socket
/// are not thread-safe). Messages go to `handler` on `handlerQueue` in the order Redis sent them (when that queue is
/// serial). After a lost connection the thread reconnects with backoff, resubscribes to every wanted channel and
/// reports `.connected` only once Redis has confirmed them all, so a state handler that resynchronises on
/// `.connected` misses nothing published after that point. Messages published while disconnected are lost (Redis
/// pub/sub keeps nothing): `.disconnected` tells the owner to expect a gap. With nothing to read for
/// `healthCheckInterval` it sends `PING` and treats a missing answer within `commandTimeout` as a lost connection.
/// Call `close()` when done (the thread holds the subscriber until then).
public final class RedisSubscriber: Sendable {
    /// A subscription: the channel and whether it is sharded.
    private struct Key: Hashable {
        var channel: [UInt8]
        var sharded: Bool
    }

    /// A change for the thread to send while connected.
    private struct Change {
        var subscribe: Bool
        var sharded: Bool
        var channels: [[UInt8]]
    }

    /// State shared by callers and the thread.
    private struct Shared {
        var state: RedisConnectionState = .connecting
        /// Every channel wanted (plain), the truth a reconnect resubscribes from.
        var channels: Set<[UInt8]> = []
        /// Every sharded channel wanted.
        var shardedChannels: Set<[UInt8]> = []
        /// Changes made since the thread last looked, in order.
        var changes: [Change] = []
        /// Callbacks waiting for Redis to confirm a subscription (fired on the handler queue).
        var confirmations: [Key: [@Sendable () -> Void]] = [:]
        var closed = false
    }

    /// State of the subscriber's thread only.
    private final class ThreadState: @unchecked Sendable {
        // @unchecked Sendable: every field is used by the subscriber's thread only (its `run` and what it calls).
        /// The live connection. Protected by: the subscriber's thread.
        var connection: RedisConnection?
        /// Subscriptions sent and not yet confirmed, with the callbacks to fire when they are.
        /// Protected by: the subscriber's thread.
        var unconfirmed: [Key: [@Sendable () -> Void]] = [:]
        /// Keys whose confirmation completes the resubscription after a connect; `.connected` is announced when
        /// it is empty. Nil once announced. Protected by: the subscriber's thread.
        var resubscribing: Set<Key>?
        /// When the last bytes arrived, or the last ping went out. Protected by: the subscriber's thread.
        var lastActivity: ContinuousClock.Instant = .now
        /// When the unanswered PING went out; nil when none is outstanding. Protected by: the subscriber's thread.
        var pingSentAt: ContinuousClock.Instant?
        /// Failed connects since the last success. Protected by: the subscriber's thread.
        var attempt = 0
        /// Whether `.disconnected` was announced for the current outage. Protected by: the subscriber's thread.
        var announcedDown = false
    }

    public let configuration: RedisConfiguration
    private let logger: Logger
    private let tls: RedisTLSContext?
    private let backoff: RedisBackoff
    private let handlerQueue: DispatchQueue
    private let handler: @Sendable (RedisMessage) -> Void
    private let stateHandler: (@Sendable (RedisConnectionState) -> Void)?
    /// Protected by: its mutex.
    private let shared = Mutex(Shared())
    /// Protected by: the subscriber's thread.
    private let threadState = ThreadState()
    /// The wake-up pipe: [read end, write end]. The write end is written under `shared`'s lock while not closed;
    /// both are closed by the thread when it ends.
    private let wakeFDs: (read: Int32, write: Int32)

    /// Creates the subscriber and starts its thread, which connects at once.
    /// - Parameters:
    ///   - configuration: where and how (its `database` is not used: pub/sub ignores databases).
    ///   - label: names the thread (`switchboard.redis.<label>`).
    ///   - handlerQueue: where `handler` and `stateHandler` run; serial keeps messages in order.
    ///   - handler: called with every message.
    ///   - stateHandler: `.connected` (all channels confirmed), `.disconnected(error)` once per outage, `.closed`.
    /// - Throws: `RedisError.invalidConfiguration`.
    public init(
        configuration: RedisConfiguration, label: String = "subscriber", logger: Logger, handlerQueue: DispatchQueue,
        handler: @escaping @Sendable (RedisMessage) -> Void,
        stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil
    ) throws(RedisError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        self.tls = configuration.tls ? try RedisTLSContext(configuration: configuration) : nil
        self.backoff = RedisBackoff(configuration)
        self.handlerQueue = handlerQueue
        self.handler = handler
        self.stateHandler = stateHandler
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .invalidConfiguration("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeFDs = (fds[0], fds[1])
        let thread = Thread { [self] in run() }
        thread.name = "switchboard.redis.\(label)"
        thread.start()
    }

    /// The current state.
    public var state: RedisConnectionState { shared.withLock { $0.state } }

    /// Subscribes to channels (sharded: `SSUBSCRIBE`, Redis 7). Kept across reconnects until unsubscribed.
    /// - Parameter confirmed: runs on the handler queue once Redis confirmed every channel (after a reconnect if
    ///   the connection is down now), or once they are unsubscribed or the subscriber closed before that.
    public func subscribe(_ channels: [[UInt8]], sharded: Bool = false, confirmed: (@Sendable () -> Void)? = nil) {
        guard !channels.isEmpty else {
            if let confirmed { handlerQueue.async(execute: confirmed) }
            return
        }
        let unique = Set(channels)
        var each: (@Sendable () -> Void)?
        if let confirmed {
            let remaining = Countdown(unique.count)
            each = { if remaining.tick() { confirmed() } }
        }
        let closed: Bool = shared.withLock { shared in
            guard !shared.closed else { return true }
            for channel in unique {
                if sharded { shared.shardedChannels.insert(channel) } else { shared.channels.insert(channel) }
                if let each { shared.confirmations[Key(channel: channel, sharded: sharded), default: []].append(each) }
            }
            shared.changes.append(Change(subscribe: true, sharded: sharded, channels: Array(unique)))
            wake()
            return false
        }
        if closed, let confirmed { handlerQueue.async(execute: confirmed) }
    }

    /// Subscribes and returns once Redis confirmed every channel (or they were unsubscribed, or the subscriber
    /// closed, first).
    public func subscribe(_ channels: [[UInt8]], sharded: Bool = false) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            subscribe(channels, sharded: sharded) { continuation.resume() }
        }
    }

    /// Subscribes to text channels.
    public func subscribe(_ channels: [String], sharded: Bool = false) async {
        await subscribe(channels.map { Array($0.utf8) }, sharded: sharded)
    }

    /// Unsubscribes from channels (sharded: `SUNSUBSCRIBE`); no more messages from them once Redis processed it.
    public func unsubscribe(_ channels: [[UInt8]], sharded: Bool = false) {
        guard !channels.isEmpty else { return }
        let dropped: [@Sendable () -> Void] = shared.withLock { shared in
            guard !shared.closed else { return [] }
            var dropped: [@Sendable () -> Void] = []
            for channel in channels {
                if sharded { shared.shardedChannels.remove(channel) } else { shared.channels.remove(channel) }
                dropped += shared.confirmations.removeValue(forKey: Key(channel: channel, sharded: sharded)) ?? []
            }
            shared.changes.append(Change(subscribe: false, sharded: sharded, channels: channels))
            wake()
            return dropped
        }
        fire(dropped)
    }

    /// The channels currently wanted (plain and sharded).
    public var subscriptions: (channels: Set<[UInt8]>, sharded: Set<[UInt8]>) {
        shared.withLock { ($0.channels, $0.shardedChannels) }
    }

    /// Stops the thread and closes the connection; no handler runs after `.closed` is delivered. Idempotent.
    public func close() {
        let dropped: [@Sendable () -> Void]? = shared.withLock { shared in
            guard !shared.closed else { return nil }
            shared.closed = true
            shared.state = .closed
            let dropped = shared.confirmations.values.flatMap { $0 }
            shared.confirmations = [:]
            wake()
            return dropped
        }
        guard let dropped else { return }
        fire(dropped)
        notify(.closed)
    }

    /// Runs confirmation callbacks on the handler queue.
    private func fire(_ callbacks: [@Sendable () -> Void]) {
        guard !callbacks.isEmpty else { return }
        handlerQueue.async { for callback in callbacks { callback() } }
    }

    /// Wakes the thread. Called with `shared`'s lock held (so the pipe is still open).
    private func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeFDs.write, &byte, 1)  // a full pipe already means "wake up"
    }

    private var isClosed: Bool { shared.withLock { $0.closed } }

    // MARK: The thread

    private func run() {
        // Bounded by `close()`: every wait below is a poll on the wake pipe, which close() writes to.
        while !isClosed {
            guard let connection = connect() else {
                waitForWake(
                    until: .now + backoff.delay(attempt: threadState.attempt - 1, random: Double.random(in: 0..<1)))
                continue
            }
            threadState.connection = connection
            do throws(RedisError) {
                try resubscribe(connection)
                try session(connection)
            } catch {
                lost(error)
                waitForWake(until: .now + backoff.delay(attempt: 0, random: Double.random(in: 0..<1)))
            }
        }
        threadState.connection?.close()
        threadState.connection = nil
        fire(threadState.unconfirmed.values.flatMap { $0 })
        threadState.unconfirmed = [:]
        shared.withLock { _ in
            _ = Glibc.close(wakeFDs.write)
            _ = Glibc.close(wakeFDs.read)
        }
    }

    private func connect() -> RedisConnection? {
        do throws(RedisError) {
            let connection = try RedisConnection.open(
                configuration, tls: tls, deadline: .now + configuration.connectTimeout)
            if threadState.attempt > 0 {
                logger.info("Redis subscriber connected", metadata: ["redis.server": "\(configuration)"])
            }
            threadState.attempt = 0
            return connection
        } catch {
            threadState.attempt += 1
            logger.debug(
                "Redis subscriber connect failed",
                metadata: ["redis.server": "\(configuration)", "redis.error": "\(error)"])
            announceDown(error)
            return nil
        }
    }

    private func announceDown(_ error: RedisError) {
        let changed: Bool = shared.withLock { shared in
            guard !shared.closed else { return false }
            shared.state = .disconnected(error)
            return true
        }
        guard changed, !threadState.announcedDown else { return }
        threadState.announcedDown = true
        logger.warning(
            "Redis subscriber disconnected", metadata: ["redis.server": "\(configuration)", "redis.error": "\(error)"])
        notify(.disconnected(error))
    }

    private func lost(_ error: RedisError) {
        threadState.connection?.close()
        threadState.connection = nil
        threadState.resubscribing = nil
        threadState.pingSentAt = nil
        // Unconfirmed subscriptions are confirmed by the next resubscription: their callbacks go back.
        let unconfirmed = threadState.unconfirmed
        threadState.unconfirmed = [:]
        let dropped: [@Sendable () -> Void] = shared.withLock { shared in
            var dropped: [@Sendable () -> Void] = []
            for (key, callbacks) in unconfirmed {
                let wanted =
                    key.sharded ? shared.shardedChannels.contains(key.channel) : shared.channels.contains(key.channel)
                if wanted && !shared.closed {
                    shared.confirmations[key, default: []].append(contentsOf: callbacks)
                } else {
                    dropped += callbacks
                }
            }
            return dropped
        }
        fire(dropped)
        announceDown(error)
    }

    /// Subscribes to every wanted channel on a fresh connection; `.connected` follows their confirmations.
    private func resubscribe(_ connection: RedisConnection) throws(RedisError) {
        let (channels, sharded, callbacks) = shared.withLock { shared in
            shared.changes = []  // the wanted sets already include them
            let callbacks = shared.confirmations
            shared.confirmations = [:]
            return (shared.channels, shared.shardedChannels, callbacks)
        }
        for (key, list) in callbacks { threadState.unconfirmed[key, default: []].append(contentsOf: list) }
        var keys = Set(channels.map { Key(channel: $0, sharded: false) })
        keys.formUnion(sharded.map { Key(channel: $0, sharded: true) })
        threadState.resubscribing = keys
        var bytes: [UInt8] = []
        try send(subscribe: true, sharded: false, channels: Array(channels), into: &bytes)
        try send(subscribe: true, sharded: true, channels: Array(sharded), into: &bytes)
        if !bytes.isEmpty { try connection.write(bytes, deadline: .now + configuration.commandTimeout) }
        threadState.lastActivity = .now
        checkResubscribed()
    }

    /// Encodes (un)subscribe commands: plain channels 1,024 per command, sharded ones one per command (a cluster
    /// requires the channels of one SSUBSCRIBE to share a slot).
    private func send(subscribe: Bool, sharded: Bool, channels: [[UInt8]], into bytes: inout [UInt8]) throws(RedisError)
    {
        guard !channels.isEmpty else { return }
        let name = sharded ? (subscribe ? "SSUBSCRIBE" : "SUNSUBSCRIBE") : (subscribe ? "SUBSCRIBE" : "UNSUBSCRIBE")
        let chunk = sharded ? 1 : 1_024
        var start = 0
        while start < channels.count {
            let end = min(channels.count, start + chunk)
            RedisCommand(arguments: [Array(name.utf8)] + channels[start..<end]).encode(into: &bytes)
            start = end
        }
    }

    private func checkResubscribed() {
        guard let keys = threadState.resubscribing, keys.isEmpty else { return }
        threadState.resubscribing = nil
        threadState.announcedDown = false
        let announced: Bool = shared.withLock { shared in
            guard !shared.closed else { return false }
            shared.state = .connected
            return true
        }
        if announced { notify(.connected) }
    }

    /// Reads and applies changes until the connection fails or the subscriber closes.
    private func session(_ connection: RedisConnection) throws(RedisError) {
        while !isClosed {
            try applyChanges(connection)
            var messages: [RedisMessage] = []
            // Read what is there (bounded: at most 64 reads before changes and the ping are looked at again).
            var blockedOn: Int16 = Int16(POLLIN)
            var drained = false
            for _ in 0..<64 {
                while let reply = try connection.reader.next() { try handle(reply, into: &messages) }
                switch try connection.readAvailable() {
                case .progress:
                    threadState.lastActivity = .now
                    continue
                case .wouldBlock(let events):
                    blockedOn = events
                    drained = true
                }
                break
            }
            while let reply = try connection.reader.next() { try handle(reply, into: &messages) }
            if !messages.isEmpty {
                let batch = messages
                handlerQueue.async { [handler] in for message in batch { handler(message) } }
            }
            // Keep-alive: PING after a quiet interval; no answer within the command timeout is a lost connection.
            let now = ContinuousClock.now
            if let sent = threadState.pingSentAt {
                if now - sent > configuration.commandTimeout { throw .timeout }
            } else if now - threadState.lastActivity >= configuration.healthCheckInterval {
                var bytes: [UInt8] = []
                RedisCommand("PING").encode(into: &bytes)
                try connection.write(bytes, deadline: now + configuration.commandTimeout)
                threadState.pingSentAt = now
            }
            // Still reading (TLS may hold decrypted bytes poll() cannot see): only look at the wake pipe.
            let next =
                !drained
                ? ContinuousClock.now
                : threadState.pingSentAt.map { $0 + configuration.commandTimeout }
                    ?? threadState.lastActivity + configuration.healthCheckInterval
            try waitForInput(connection, events: blockedOn, until: next)
        }
    }

    private func applyChanges(_ connection: RedisConnection) throws(RedisError) {
        let (changes, callbacks) = shared.withLock { shared in
            let result = (shared.changes, shared.confirmations)
            shared.changes = []
            shared.confirmations = [:]
            return result
        }
        for (key, list) in callbacks { threadState.unconfirmed[key, default: []].append(contentsOf: list) }
        guard !changes.isEmpty else { return }
        var bytes: [UInt8] = []
        for change in changes {
            try send(subscribe: change.subscribe, sharded: change.sharded, channels: change.channels, into: &bytes)
            if !change.subscribe {
                for channel in change.channels {
                    fire(
                        threadState.unconfirmed.removeValue(forKey: Key(channel: channel, sharded: change.sharded))
                            ?? [])
                }
            }
        }
        try connection.write(bytes, deadline: .now + configuration.commandTimeout)
    }

    private func handle(_ reply: RedisValue, into messages: inout [RedisMessage]) throws(RedisError) {
        threadState.lastActivity = .now
        switch reply {
        case .simpleString:  // PONG outside subscribed mode
            threadState.pingSentAt = nil
            return
        case .error(let message):
            throw .protocolError("pub/sub error reply: \(message)")
        case .array(let items):
            guard let kind = items.first?.string?.lowercased() else { break }
            switch kind {
            case "message", "smessage":
                guard items.count == 3, let channel = items[1].bytes, let payload = items[2].bytes else { break }
                messages.append(RedisMessage(channel: channel, payload: payload, sharded: kind == "smessage"))
                return
            case "subscribe", "ssubscribe":
                guard items.count == 3, let channel = items[1].bytes else { break }
                confirm(Key(channel: channel, sharded: kind == "ssubscribe"))
                return
            case "unsubscribe":
                return
            case "sunsubscribe":
                // Redis drops sharded subscriptions when a slot moves: resubscribe if still wanted.
                guard items.count == 3, let channel = items[1].bytes else { break }
                shared.withLock { shared in
                    if shared.shardedChannels.contains(channel) {
                        shared.changes.append(Change(subscribe: true, sharded: true, channels: [channel]))
                    }
                }
                return
            case "pong":
                threadState.pingSentAt = nil
                return
            default:
                break
            }
        default:
            break
        }
        throw .protocolError("unexpected reply on a pub/sub connection")
    }

    private func confirm(_ key: Key) {
        fire(threadState.unconfirmed.removeValue(forKey: key) ?? [])
        if threadState.resubscribing != nil {
            threadState.resubscribing?.remove(key)
            checkResubscribed()
        }
    }

    /// Waits for the socket, the wake pipe or `deadline`, whichever comes first.
    private func waitForInput(_ connection: RedisConnection, events: Int16, until deadline: ContinuousClock.Instant)
        throws(RedisError)
    {
        var fds = [
            pollfd(fd: connection.fd, events: events, revents: 0),
            pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0),
        ]
        let rc = poll(&fds, 2, Self.milliseconds(until: deadline))
        if rc < 0, errno != EINTR { throw .connectionLost("poll: \(String(cString: strerror(errno)))") }
        if fds[1].revents != 0 { drainWakePipe() }
    }

    /// Sleeps until `deadline` or a wake-up (a subscription change or close()).
    private func waitForWake(until deadline: ContinuousClock.Instant) {
        guard !isClosed else { return }
        var fd = pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, Self.milliseconds(until: deadline))
        if fd.revents != 0 { drainWakePipe() }
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        for _ in 0..<16 where read(wakeFDs.read, &buffer, buffer.count) == buffer.count {}
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = deadline - .now
        guard remaining > .zero else { return 0 }
        return Int32(
            clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
        )
    }

    private func notify(_ state: RedisConnectionState) {
        guard let stateHandler else { return }
        handlerQueue.async { stateHandler(state) }
    }
}

/// Counts down from n; `tick()` is true exactly once, at the tick that reaches zero.
private final class Countdown: Sendable {
    /// Protected by: its mutex.
    private let remaining: Mutex<Int>

    init(_ count: Int) { remaining = Mutex(count) }

    func tick() -> Bool {
        remaining.withLock { count in
            count -= 1
            return count == 0
        }
    }
}
