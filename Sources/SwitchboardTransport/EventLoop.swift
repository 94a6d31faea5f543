//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CSwitchboardSys
public import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One serial loop queue owning a set of connections.
///
/// Design (see docs/architecture.md): one `DispatchSourceRead` watches a private, level-triggered epoll
/// set of this loop's sockets, so a readable socket costs one `epoll_wait` shared by the whole batch plus
/// its `read`, instead of a Dispatch source pair per connection (measured here: ~5 syscalls per echo and
/// 1.1-1.6x slower than SwiftNIO). Writes made while a batch runs are coalesced and flushed once at its end.
/// One sweep timer per loop drives idle and handshake timeouts for all of its connections.
///
/// Work handed to the loop from other queues (`execute`, `executeBatch`: replies, deliveries of commits and
/// events) goes into one FIFO inbox. The first item posted to an empty inbox schedules one drain; items posted
/// while that drain is pending or running join it, and a read batch runs whatever waits in the inbox before it
/// flushes. A loop turn therefore flushes each connection once, however many commits and events it took in: one
/// `writev` per connection per turn (issue 17). Nothing waits when the loop is idle: the first item schedules
/// its drain at once.
///
/// A turn flushes at most `flushBudget` of the connections it wrote to; the rest wait in a backlog that later turns
/// work off, `flushBudget` connections each, in their own Dispatch work items. Reads and posted work run between
/// those turns, and what a turn writes is flushed before the backlog (a connection in the backlog that is written
/// to again is flushed with the new turn, everything it holds in order). A community notification to 2,000 members
/// (about 20 ms of sends) therefore no longer holds a call's `call.ended` behind it (issue 17's budget run); and a
/// connection waiting in the backlog takes in more frames for the same `writev`.
public final class EventLoop: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is confined to `queue` (asserted at entry points);
    // the immutable ones are set in init.

    /// Position in the group.
    public let index: Int
    /// The serial queue that owns this loop's connections.
    public let queue: DispatchQueue
    let epollFD: Int32
    let logger: Logger
    private let readSource: any DispatchSourceRead
    private let sweepTimer: any DispatchSourceTimer
    let sweepInterval: UInt64
    /// Shared by every read on this loop; valid only during a handler callback.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Scratch for coalescing small queued arrays into one writev.
    let gatherBuffer: UnsafeMutableRawBufferPointer

    /// Work posted from any queue and not yet run, in order; `drainScheduled`: a drain is queued or running.
    private let inbox = Mutex<(work: [@Sendable () -> Void], drainScheduled: Bool)>(([], false))
    // The fields a turn touches per connection are `@exclusivity(unchecked)`, as `Connection`'s are: confined to
    // `queue`, and no access to one overlaps another access to it.
    // protected by queue
    var connections: [Int32: Connection] = [:]
    // protected by queue: connections written to in this turn, to flush at its end
    @exclusivity(unchecked) var pendingFlush: [Connection] = []
    // protected by queue: the array `flushWritten` works through (swapped with `pendingFlush`, so that both keep
    // their storage: a fan-out to 1,000 connections grew a new one each turn)
    @exclusivity(unchecked) private var flushing: [Connection] = []
    /// Connections written to in an earlier turn and not flushed yet (over that turn's budget), oldest first from
    /// `backlogHead`.
    // protected by queue
    @exclusivity(unchecked) private var flushBacklog: [Connection] = []
    // protected by queue
    @exclusivity(unchecked) private var backlogHead = 0
    // protected by queue: a turn for the backlog is queued
    private var backlogTurnQueued = false
    /// Connections a turn flushes from those it wrote to, and again from the backlog.
    public let flushBudget: Int
    // protected by queue
    @exclusivity(unchecked) var inBatch = false
    // protected by queue
    private var lastSweep: UInt64 = 0
    /// `send`/`writev` calls made by this loop's connections (deliveries per send call: frames out over this).
    // protected by queue
    @exclusivity(unchecked) public internal(set) var writeCalls = 0
    // protected by queue
    public private(set) var lastLagNanoseconds: UInt64 = 0
    // protected by queue
    private var events: UnsafeMutablePointer<CSwitchboardSys_event>
    /// Called on `queue` after every sweep with the loop index and how late the sweep fired (ns); set with
    /// `setSweepObserver(_:)` (the loop runs from its creation, so it is set on `queue` too).
    // protected by queue
    private var onSweep: (@Sendable (Int, UInt64) -> Void)?

    init(
        index: Int, readBufferSize: Int, sweepInterval: UInt64, flushBudget: Int = EventLoopGroup.defaultFlushBudget,
        logger: Logger
    ) throws {
        self.index = index
        self.flushBudget = max(1, flushBudget)
        self.logger = logger
        self.sweepInterval = sweepInterval
        queue = DispatchQueue(label: "switchboard.loop.\(index)", qos: .userInitiated)
        let fd = CSwitchboardSys_epoll_create()
        guard fd >= 0 else { throw IOError(errno: errno, function: "epoll_create1") }
        epollFD = fd
        readBuffer = .allocate(byteCount: readBufferSize, alignment: 16)
        gatherBuffer = .allocate(byteCount: 256 * 1024, alignment: 16)
        events = .allocate(capacity: 256)
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        sweepTimer = DispatchSource.makeTimerSource(queue: queue)
    }

    deinit {
        readBuffer.deallocate()
        gatherBuffer.deallocate()
        events.deallocate()
    }

    func start() {
        readSource.setEventHandler { [unowned self] in self.runBatch() }
        readSource.setCancelHandler { [epollFD] in Glibc.close(epollFD) }
        readSource.resume()
        sweepTimer.setEventHandler { [unowned self] in self.sweep() }
        sweepTimer.schedule(
            deadline: .now() + .nanoseconds(Int(sweepInterval)), repeating: .nanoseconds(Int(sweepInterval)),
            leeway: .milliseconds(10))
        queue.async { [self] in lastSweep = Self.now() }
        sweepTimer.resume()
    }

    func stop() {
        // Through the inbox, so that work posted after `stop` (e.g. `shutdown(notifying:)`'s marker) runs after it.
        post { [self] in
            for connection in Array(connections.values) { connection.close(mode: .immediately) }
            sweepTimer.cancel()
            readSource.cancel()
        }
    }

    /// Sets (or with nil removes) the observer called on `queue` after every sweep with the loop index and how
    /// late the sweep fired (ns). Callable from any queue: the change is made on `queue`.
    public func setSweepObserver(_ observer: (@Sendable (Int, UInt64) -> Void)?) {
        queue.async { [self] in onSweep = observer }
    }

    /// Runs `work` on this loop's queue, after the work posted before it (`execute` and `executeBatch` share one
    /// FIFO inbox). Writes it queues are flushed at the end of the loop turn that runs it.
    public func execute(_ work: @escaping @Sendable () -> Void) { post(work) }

    /// Runs `work` on this loop's queue as part of a batch: writes it queues on many connections are flushed
    /// once per connection at the end of the loop turn (a fan-out of many messages, from however many commits
    /// arrived in that turn, costs one `writev` per connection).
    public func executeBatch(_ work: @escaping @Sendable () -> Void) { post(work) }

    private func post(_ work: @escaping @Sendable () -> Void) {
        let schedule = inbox.withLock { state -> Bool in
            state.work.append(work)
            if state.drainScheduled { return false }
            state.drainScheduled = true
            return true
        }
        if schedule { queue.async { [self] in drain() } }
    }

    /// A turn for the inbox alone: its work, then one flush.
    private func drain() {
        assertOnLoop()
        if inBatch {
            // Only reachable if a drain was queued re-entrantly (queue.sync from inside a batch cannot happen on
            // a serial queue): run the work, the enclosing batch flushes.
            runInbox()
            return
        }
        inBatch = true
        runInbox()
        flushPending()
        inBatch = false
    }

    /// Runs the inbox until it is empty (work that posts more work to this loop is run in the same turn, up to
    /// 64 rounds; what remains after them keeps its scheduled drain, so a loop that feeds itself cannot starve
    /// its sockets).
    private func runInbox() {
        var rounds = 0
        while rounds < 64 {
            rounds += 1
            let work = inbox.withLock { state -> [@Sendable () -> Void] in
                let work = state.work
                if work.isEmpty {
                    state.drainScheduled = false
                } else {
                    state.work = []
                    state.work.reserveCapacity(min(work.count, 64))
                }
                return work
            }
            if work.isEmpty { return }
            for item in work { item() }
        }
        // Work remains after 64 rounds: make sure a drain comes after the sockets had their turn.
        queue.async { [self] in drain() }
    }

    /// Traps unless called on this loop's queue.
    @inline(__always)
    public func assertOnLoop() { dispatchPrecondition(condition: .onQueue(queue)) }

    /// Monotonic nanoseconds.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Number of connections owned by this loop. Call on the loop.
    public var connectionCount: Int {
        assertOnLoop()
        return connections.count
    }

    /// Calls `body` for each connection of this loop. Call on the loop.
    public func forEachConnection(_ body: (Connection) -> Void) {
        assertOnLoop()
        for connection in Array(connections.values) { body(connection) }
    }

    // MARK: registration

    func register(_ connection: Connection, events: UInt32) throws {
        assertOnLoop()
        guard CSwitchboardSys_epoll_add(epollFD, connection.fd, events, UInt64(UInt32(bitPattern: connection.fd))) == 0
        else {
            throw IOError(errno: errno, function: "epoll_ctl(ADD)")
        }
        connections[connection.fd] = connection
    }

    func modify(_ connection: Connection, events: UInt32) {
        assertOnLoop()
        _ = CSwitchboardSys_epoll_mod(epollFD, connection.fd, events, UInt64(UInt32(bitPattern: connection.fd)))
    }

    func deregister(_ connection: Connection) {
        assertOnLoop()
        _ = CSwitchboardSys_epoll_del(epollFD, connection.fd)
        connections[connection.fd] = nil
    }

    func scheduleFlush(_ connection: Connection) {
        pendingFlush.append(connection)
    }

    // MARK: the batch

    private func runBatch() {
        assertOnLoop()
        inBatch = true
        var rounds = 0
        while rounds < 8 {
            rounds += 1
            let n = CSwitchboardSys_epoll_wait(epollFD, events, 256, 0)
            if n <= 0 { break }
            for i in 0..<Int(n) {
                let event = events[i]
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: event.data))
                guard let connection = connections[fd] else { continue }
                connection.handleEvents(event.events)
            }
            if n < 256 { break }
        }
        // Replies and deliveries that arrived from other queues meanwhile join this turn's flush.
        runInbox()
        flushPending()
        inBatch = false
    }

    /// The end of a turn: flushes the connections this turn wrote to, up to `flushBudget` (the rest join the
    /// backlog), then up to `flushBudget` from the backlog; queues a turn for what remains of the backlog.
    func flushPending() {
        flushWritten(budget: flushBudget)
        var fromBacklog = 0
        while backlogHead < flushBacklog.count, fromBacklog < flushBudget {
            let connection = flushBacklog[backlogHead]
            backlogHead += 1
            fromBacklog += 1
            connection.inFlushBacklog = false
            // Nothing to write if a later turn flushed it already: no system call then.
            connection.flushNow()
        }
        // A flush may queue writes (a drained connection's handler): they are flushed now, as before the budget.
        flushWritten(budget: .max)
        if backlogHead == flushBacklog.count {
            if backlogHead > 0 {
                flushBacklog.removeAll(keepingCapacity: flushBacklog.count <= 4096)
                backlogHead = 0
            }
        } else if !backlogTurnQueued {
            backlogTurnQueued = true
            queue.async { [self] in backlogTurn() }
        }
    }

    /// Flushes the connections written to in this turn (and those their flushes write to), up to `budget`; the rest
    /// join the backlog.
    private func flushWritten(budget: Int) {
        var flushed = 0
        while !pendingFlush.isEmpty {
            // A flush may write to connections (a drained connection's handler): they join `pendingFlush` meanwhile.
            swap(&pendingFlush, &flushing)
            for index in flushing.indices {
                let connection = flushing[index]
                connection.flushScheduled = false
                if flushed < budget {
                    flushed += 1
                    connection.flushNow()
                } else if !connection.inFlushBacklog {
                    connection.inFlushBacklog = true
                    flushBacklog.append(connection)
                }
            }
            flushing.removeAll(keepingCapacity: flushing.count <= 4096)
        }
    }

    /// A turn for the backlog alone (queued behind the reads and posted work that came meanwhile).
    private func backlogTurn() {
        assertOnLoop()
        backlogTurnQueued = false
        inBatch = true
        flushPending()
        inBatch = false
    }

    /// Connections waiting in the flush backlog (tests).
    public var flushBacklogCount: Int {
        assertOnLoop()
        return flushBacklog.count - backlogHead
    }

    private func sweep() {
        assertOnLoop()
        let now = Self.now()
        let expected = lastSweep &+ sweepInterval
        lastLagNanoseconds = now > expected ? now - expected : 0
        lastSweep = now
        inBatch = true
        for connection in Array(connections.values) { connection.sweep(now: now) }
        flushPending()
        inBatch = false
        assertOnLoop()
        onSweep?(index, lastLagNanoseconds)
    }
}
