//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket
import Synchronization

/// One writer: a serial queue owning the states of its conversations, the queue of pending writes and
/// the typing indicators. One batch is in flight at a time; writes arriving meanwhile form the next batch,
/// so under load many messages share one commit.
final class MessageWriter: @unchecked Sendable {
    // @unchecked Sendable: every mutable field below is only touched on `queue` (asserted).
    let queue: DispatchQueue
    let index: Int
    let registry: SessionRegistry
    /// Where replies, messages and typing events go.
    let outbox: any Outbox
    let clock: any EngineClock
    let pool: DatabasePool
    let configuration: MessagingConfiguration
    let metrics: ServerMetrics
    /// Its backlog, batch sizes and commit times (`/metrics`).
    let instruments: MessageWriterMetrics
    let logger: Logger
    // protected by queue: cached states of this writer's conversations, hints checked under the row lock by every
    // batch (`MessageBatch`); the seq always comes from the locked row
    private var states: [Int64: ConversationState] = [:]
    // protected by queue
    private var pending: [WriteRequest] = []
    // protected by queue
    private var inFlight = false
    // protected by queue: an idle writer's start is queued behind the submissions already on the queue
    private var startQueued = false
    // protected by queue: parts of a batch the database refused for its data, each retried as a batch of its
    // own (bisection) before anything of `pending`, so one bad write cannot fail the others
    private var retries: [[WriteRequest]] = []
    // protected by queue
    private var typing: TypingTracker
    private let typingTimer: DeadlineTimer
    // protected by queue: conversations whose state is being loaded for typing, with the waiting work
    private var loading: [Int64: [@Sendable (ConversationState?) -> Void]] = [:]
    /// In a cluster, a resend that finds its message stored already delivers it again: the node that stored it
    /// may have died before delivering it, and a connection never gets the same seq twice (`SentSeqs`), so those
    /// that had it see nothing. (On one node the process that stored it delivered it.)
    private let redeliversResends: Bool

    init(
        index: Int, registry: SessionRegistry, outbox: any Outbox, clock: any EngineClock = SystemClock(),
        pool: DatabasePool,
        configuration: MessagingConfiguration, metrics: ServerMetrics, logger: Logger, redeliversResends: Bool
    ) {
        self.index = index
        self.outbox = outbox
        self.redeliversResends = redeliversResends
        self.clock = clock
        self.metrics = metrics
        instruments = MessageWriterMetrics(writer: index, metrics: metrics)
        self.registry = registry
        self.pool = pool
        self.configuration = configuration
        self.logger = logger
        queue = DispatchQueue(label: "switchboard.messages.\(index)")
        typing = TypingTracker(ttl: UInt64(configuration.typingTTL * 1e9))
        typingTimer = DeadlineTimer(queue: queue, clock: clock)
    }

    private func assertOnQueue() { dispatchPrecondition(condition: .onQueue(queue)) }

    // MARK: writes

    func submit(_ request: WriteRequest) {
        queue.async { [self] in
            // Announcements (stored already) are delivered in order with everything else of this writer.
            let isAnnouncement = if case .announce = request.action { true } else { false }
            if !isAnnouncement && pending.count >= configuration.maxPendingWrites {
                finish(
                    [request], [.failure(ServiceError(.unavailable, "the server is busy; retry shortly"))], stored: [])
                return
            } else {
                pending.append(request)
                publishBacklog()
            }
            // An idle writer starts on its next turn, not in this one: the submissions a loop made in the same read
            // batch (senders answering their acknowledgements at once) are queued already and join this batch.
            // Starting at once made a batch of one, then one of the rest: at 32 sends in flight to a group of
            // 1,000, every other commit carried a single message, each costing a commit and 1,000 send calls of one
            // frame (issue 17). At low load it adds one queue hop, no waiting.
            if !inFlight && !startQueued {
                startQueued = true
                queue.async { [self] in
                    startQueued = false
                    if !inFlight { startBatch() }
                }
            }
        }
    }

    private func startBatch() {
        assertOnQueue()
        let batch: [WriteRequest]
        if !retries.isEmpty {
            batch = retries.removeFirst()
        } else {
            guard !pending.isEmpty else { return }
            let count = min(pending.count, configuration.maxBatch)
            batch = Array(pending[0..<count])
            pending.removeFirst(count)
        }
        publishBacklog()
        // A batch of announcements only (stored already) needs no database work.
        if batch.allSatisfy({ if case .announce = $0.action { true } else { false } }) {
            finish(
                batch,
                batch.map { r in
                    if case .announce(let m) = r.action {
                        .success(m)
                    } else {
                        .failure(ServiceError.invariant("a batch request neither announced nor failed"))
                    }
                }, stored: [])
            startBatch()
            return
        }
        inFlight = true
        instruments.batchWrites.record(batch.count)
        var known: [Int64: ConversationState] = [:]
        for request in batch { if let s = states[request.conversationId] { known[request.conversationId] = s } }
        let configuration = configuration
        let knownStates = known
        let prepared = PreparedOutcome()
        let commitTime = instruments.commitTime
        // Urgent: a batch's senders wait for its commit, so it goes ahead of request reads waiting for a connection
        // (200 clients resuming at once queue 200 syncs: acknowledgements waited up to 0.16 s behind them). Each
        // writer has one batch in flight, so with fewer writers than pooled connections the reads always keep some;
        // with as many or more, the commits wait in line with the reads (no starvation of reads).
        pool.withConnection(
            on: queue, urgent: max(1, configuration.writers) < pool.size,
            { db in
                let start = EventLoop.now()
                func commit(lookUpKeys: Bool) throws -> Outcome {
                    try db.transaction { db in
                        let outcome = try Self.execute(
                            batch, known: knownStates, configuration: configuration, lookUpKeys: lookUpKeys, db)
                        // From here on a failure may be one of the COMMIT, whose outcome the server knows.
                        prepared.set(outcome)
                        return outcome
                    }
                }
                let outcome: Outcome
                do {
                    // Without looking the client ids up first: a resend is rare, and the look-up was a statement per
                    // message (PostgreSQL's start-up of a statement was its largest cost at 32 in flight).
                    outcome = try commit(lookUpKeys: false)
                } catch is MessageBatch.StoredKeyConflict {
                    // A resend of a stored message: that try was rolled back; this one answers it with the stored one.
                    outcome = try commit(lookUpKeys: true)
                }
                commitTime.recordNanoseconds(Int64(clamping: EventLoop.now() - start))
                if let sql = configuration.sqlAfterCommitForTesting?() { try db.executeScript(sql) }
                return outcome
            },
            completion: { [self] result in
                switch result {
                case .success(let outcome):
                    committed(batch, outcome)
                case .failure(let error)
                where (error as? PostgresError)?.isConnectionProblem == true && prepared.value != nil:
                    // The connection failed while (or after) the COMMIT was sent: it may have committed. Keep the
                    // writer busy (`inFlight`) until the server says which, so seqs stay gapless.
                    logger.warning(
                        "message batch: commit outcome unknown; resolving",
                        metadata: [
                            LogKey.error: "\(error)", LogKey.writes: "\(batch.count)",
                            LogKey.conversationId: "\(batch.conversationsForLog)",
                        ])
                    let timeout = configuration.commitResolutionTimeout
                    resolve(
                        batch, prepared.value!, deadline: clock.now() &+ UInt64(max(0, min(timeout, 86_400)) * 1e9),
                        attempt: 0)
                    return
                case .failure(let error) where (error as? PostgresError)?.isDataProblem == true:
                    // Nothing was committed, and the database refused some write's data (a value it rejects that
                    // validation did not catch): bisect, so that the others commit and only the bad one fails.
                    for request in batch { states[request.conversationId] = nil }
                    if batch.count > 1 {
                        let half = batch.count / 2
                        retries.insert(contentsOf: [Array(batch[..<half]), Array(batch[half...])], at: 0)
                    } else {
                        logger.warning(
                            "message write refused by the database",
                            metadata: [
                                LogKey.error: "\(error)", LogKey.conversationId: "\(batch.conversationsForLog)",
                                LogKey.userId: "\(batch.first.map { String($0.actor) } ?? "")",
                            ])
                        finish(
                            batch, [.failure(ServiceError(.badRequest, "the database refused this write's data"))],
                            stored: [])
                    }
                case .failure(let error):
                    // Nothing was committed: forget the states (they are reloaded), fail every request.
                    for request in batch { states[request.conversationId] = nil }
                    let failure = ServiceError.from(error)
                    if failure.code == .internal {
                        logger.error(
                            "message batch failed",
                            metadata: [
                                LogKey.error: "\(error)", LogKey.writes: "\(batch.count)",
                                LogKey.conversationId: "\(batch.conversationsForLog)",
                            ])
                    }
                    finish(batch, batch.map { _ in .failure(failure) }, stored: [])
                }
                batchDone()
            })
    }

    /// Publishes the writes waiting (pending, and parts of a refused batch to retry) to the backlog gauge.
    private func publishBacklog() {
        assertOnQueue()
        instruments.backlog.record(pending.count + retries.reduce(0) { $0 + $1.count })
    }

    /// The batch in flight is settled: the next one may start.
    private func batchDone() {
        assertOnQueue()
        inFlight = false
        evictIfNeeded()
        startBatch()
    }

    /// A batch committed: cache its states, reply and deliver.
    private func committed(_ batch: [WriteRequest], _ outcome: Outcome) {
        assertOnQueue()
        metrics.messageBatches.increment()
        let stored = outcome.stored.count { $0 }
        if stored > 0 { metrics.messagesStored.increment(by: stored) }
        for (id, state) in outcome.states { states[id] = state }
        finish(batch, outcome.results, stored: outcome.stored)
    }

    /// A batch whose commit outcome stays unknown: every write is answered `unavailable` (a resend with the
    /// same `client_id` gets the original acknowledgement if it did commit), the states are dropped.
    private func giveUp(_ batch: [WriteRequest], _ why: String) {
        assertOnQueue()
        logger.error(
            "message batch: commit outcome unresolved",
            metadata: [
                LogKey.reason: "\(why)", LogKey.writes: "\(batch.count)",
                LogKey.conversationId: "\(batch.conversationsForLog)",
            ])
        for request in batch { states[request.conversationId] = nil }
        let failure = ServiceError(
            .unavailable, "the database failed during the commit; resend with the same client_id")
        finish(batch, batch.map { _ in .failure(failure) }, stored: [])
        batchDone()
    }

    /// Learns whether a batch whose COMMIT lost its answer committed (`txid_status` on another connection),
    /// retrying with back-off while the database is unreachable or the old session still commits, until
    /// `deadline`. Committed: replied and delivered as usual. Aborted, or still unknown at the deadline: every
    /// write is answered `unavailable` and the states are dropped (reloaded from the database, so seqs stay
    /// gapless); clients resend with the same `client_id` and get the original acknowledgement if it did commit.
    private func resolve(_ batch: [WriteRequest], _ outcome: Outcome, deadline: UInt64, attempt: Int) {
        assertOnQueue()
        guard let transactionId = outcome.transactionId else {
            // Nothing was written (duplicates and refusals only): the outcome holds either way.
            committed(batch, outcome)
            batchDone()
            return
        }
        guard configuration.commitResolutionTimeout > 0 else {
            giveUp(batch, "resolution disabled")
            return
        }
        pool.withConnection(
            on: queue, { db in try MessageStore.commitStatus(db, transactionId: transactionId) },
            completion: { [self] result in
                switch result {
                case .success("committed"):
                    logger.info(
                        "message batch: commit outcome resolved: committed", metadata: [LogKey.writes: "\(batch.count)"]
                    )
                    committed(batch, outcome)
                    batchDone()
                case .success("aborted"):
                    for request in batch { states[request.conversationId] = nil }
                    let failure = ServiceError(.unavailable, "the database is unavailable; retry shortly")
                    finish(batch, batch.map { _ in .failure(failure) }, stored: [])
                    batchDone()
                case .success(nil):
                    giveUp(batch, "transaction too old")
                default:
                    // Unreachable database, or the old session is still committing: again, later.
                    guard clock.now() < deadline else {
                        giveUp(batch, "timeout")
                        return
                    }
                    let delay = min(0.05 * Double(1 << min(attempt, 5)), 1.0)
                    queue.asyncAfter(deadline: .now() + delay) { [self] in
                        resolve(batch, outcome, deadline: deadline, attempt: attempt + 1)
                    }
                }
            })
    }

    private func evictIfNeeded() {
        guard states.count > configuration.maxCachedConversations else { return }
        // Any state can be reloaded; drop an arbitrary quarter.
        for key in states.keys.prefix(states.count / 4) { states[key] = nil }
    }

    typealias Outcome = MessageBatch.Outcome

    /// A batch's outcome once its statements ran, before COMMIT: set on the connection's queue, read on the
    /// writer's queue after the completion hop (a lock makes the hand-over explicit).
    final class PreparedOutcome: Sendable {
        private let storage = Mutex<Outcome?>(nil)
        func set(_ outcome: Outcome) { storage.withLock { $0 = outcome } }
        var value: Outcome? { storage.withLock { $0 } }
    }

    /// Runs a batch in one transaction on a leased connection: the domain's rules (`MessageBatch`) on the
    /// database's store. Pure with respect to the writer: it reads the known states and returns the new ones.
    static func execute(
        _ batch: [WriteRequest], known: [Int64: ConversationState], configuration: MessagingConfiguration,
        lookUpKeys: Bool,
        _ db: PostgresConnection
    ) throws -> Outcome {
        try MessageBatch.run(
            batch.map { ConversationWrite(conversationId: $0.conversationId, actor: $0.actor, action: $0.action) },
            known: known,
            maxGroupMembers: configuration.maxGroupMembers, store: PostgresMessageBatchStore(db), lookUpKeys: lookUpKeys
        )
    }

    /// Replies to every request, then delivers every new message to the online devices of the members who
    /// see it, one batch per loop, in order.
    private func finish(_ batch: [WriteRequest], _ results: [Result<ChatMessage, ServiceError>], stored: [Bool]) {
        assertOnQueue()
        var plan = DeliveryPlan()
        // The online devices of the last message's recipients: a commit often carries many messages of one group
        // with the same members, whose devices are looked up once (one registry snapshot for the whole commit).
        var lastRecipients: (conversationId: Int64, users: [Int64], devices: [Device])?
        for (i, request) in batch.enumerated() {
            let result = results[i]
            if let origin = request.origin, let reply = request.reply { plan.reply(reply.reply(result), to: origin) }
            request.completion?(result)
            let resent = if redeliversResends, case .send = request.action { true } else { false }
            guard (i < stored.count && stored[i]) || resent, case .success(let message) = result else {
                if case .announce(let m) = request.action {
                    lastRecipients = nil  // the next message starts a run of its own
                    plan.deliver(
                        OutboundMessage(m), to: registry.devices(ofUsers: m.system?.userIds ?? []),
                        except: request.origin?.connection)
                }
                continue
            }
            guard let state = states[message.conversationId] else { continue }
            let recipients = state.members.compactMap { $0.value.sees(message.seq) ? $0.key : nil }
            let devices: [Device]
            let sameDevices: Bool
            if let last = lastRecipients, last.conversationId == message.conversationId, last.users == recipients {
                devices = last.devices
                sameDevices = true
            } else {
                devices = registry.devices(ofDistinctUsers: recipients)
                lastRecipients = (message.conversationId, recipients, devices)
                sameDevices = false
            }
            metrics.messageDeliveries.increment(by: devices.count)
            plan.deliver(
                OutboundMessage(message), to: devices, except: request.origin?.connection,
                sameDevicesAsLast: sameDevices)
            if let sender = message.senderId {
                for key in typing.stopAll(conversationId: message.conversationId, userId: sender) {
                    broadcastTyping(key, active: false, state: state, plan: &plan)
                }
            }
        }
        outbox.post(plan.batch)
    }

    // MARK: typing

    /// A typing or recording indicator from a member (already rate-limited). `reply` runs on the origin's loop.
    func typing(
        conversationId: Int64, userId: Int64, activity: String, active: Bool, origin: Device, id: RequestID
    ) {
        queue.async { [self] in
            withState(conversationId) { [self] state in
                assertOnQueue()
                var plan = DeliveryPlan()
                guard let state, state.isActiveMember(userId) else {
                    plan.reply(.empty(id, op: Ops.Typing.name, ServiceError.notMember), to: origin)
                    outbox.post(plan.batch)
                    return
                }
                let proceed: @Sendable (ConversationState) -> Void = { [self] state in
                    assertOnQueue()
                    var plan = DeliveryPlan()
                    let key = TypingTracker.Key(conversationId: conversationId, userId: userId, activity: activity)
                    let changed = active ? typing.start(key, now: clock.now()) : typing.stop(key)
                    plan.reply(.empty(id, op: Ops.Typing.name, nil), to: origin)
                    // A refresh is announced too, so late joiners and expiring clients stay in step.
                    if changed || active { broadcastTyping(key, active: active, state: state, plan: &plan) }
                    outbox.post(plan.batch)
                    armTypingTimer()
                }
                guard !state.isGroup, let other = state.members.keys.first(where: { $0 != userId }) else {
                    proceed(state)
                    return
                }
                // A direct conversation carries typing between friends only (as it carries messages): an
                // ex-friend's indicator is refused, not delivered.
                let pair = FriendRepository.Pair(userId, other)
                pool.withConnection(
                    on: queue, { db in try FriendRepository.areFriends(db, pairs: [pair]) },
                    completion: { [self] result in
                        switch result {
                        case .success(let friends) where friends.contains(pair):
                            proceed(states[conversationId] ?? state)
                        case .success:
                            var plan = DeliveryPlan()
                            plan.reply(
                                .empty(
                                    id, op: Ops.Typing.name, ServiceError(.notFriends, "you can only message friends")),
                                to: origin)
                            outbox.post(plan.batch)
                        case .failure(let error):
                            var plan = DeliveryPlan()
                            plan.reply(.empty(id, op: Ops.Typing.name, ServiceError.from(error)), to: origin)
                            outbox.post(plan.batch)
                        }
                    })
            }
        }
    }

    /// Runs `body` with the conversation's state as the database has it now (nil: no such conversation). A
    /// cached direct conversation is used as is (its two members never change); a group's cached state is
    /// checked against the row's version first (one small read: another process may have added, removed or
    /// renamed) and reloaded when it differs. Concurrent calls for one conversation share the read.
    private func withState(_ id: Int64, _ body: @escaping @Sendable (ConversationState?) -> Void) {
        assertOnQueue()
        if let state = states[id], !state.isGroup {
            body(state)
            return
        }
        if loading[id] != nil {
            loading[id]!.append(body)
            return
        }
        loading[id] = [body]
        let cached = states[id]
        pool.withConnection(
            on: queue,
            { db -> ConversationState?? in
                // .some(nil): no such conversation; nil: the cached state is current.
                if let cached {
                    guard let head = try MessageStore.head(db, id: id) else { return .some(nil) }
                    if head.version == cached.version { return nil }
                }
                return .some(try MessageStore.loadStates(db, ids: [id])[id])
            },
            completion: { [self] result in
                let waiting = loading.removeValue(forKey: id) ?? []
                var state: ConversationState?
                switch result {
                case .success(nil):
                    state = states[id] ?? cached
                case .success(.some(let loaded)):
                    // A batch may have cached a state meanwhile: the newer version wins (versions only grow).
                    if let loaded, states[id].map({ $0.version < loaded.version }) ?? true { states[id] = loaded }
                    state = loaded == nil ? nil : states[id]
                case .failure:
                    state = nil
                }
                for body in waiting { body(state) }
            })
    }

    private func broadcastTyping(
        _ key: TypingTracker.Key, active: Bool, state: ConversationState, plan: inout DeliveryPlan
    ) {
        let event = TypingUpdate(
            conversationId: key.conversationId, userId: key.userId, activity: key.activity, active: active,
            expiresInMs: active ? Int64(configuration.typingTTL * 1000) : 0)
        let recipients = state.activeMembers.filter { $0 != key.userId }
        plan.ephemeral(
            event.eventJSON, source: "t:\(key.conversationId):\(key.userId):\(key.activity)",
            to: registry.devices(ofDistinctUsers: recipients))
    }

    private func armTypingTimer() {
        assertOnQueue()
        typingTimer.arm(typing.nextDeadline) { [weak self] in self?.typingTick() }
    }

    private func typingTick() {
        assertOnQueue()
        var plan = DeliveryPlan()
        for key in typing.tick(now: clock.now()) {
            if let state = states[key.conversationId] { broadcastTyping(key, active: false, state: state, plan: &plan) }
        }
        outbox.post(plan.batch)
        armTypingTimer()
    }
}
