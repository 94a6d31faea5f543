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
import SwitchboardTransport
import SwitchboardWebSocket

extension ProtocolApplication {
    var hub: MessageHub { services.messages }
    var config: MessagingConfiguration { services.messages.configuration }

    // MARK: delivery (on the loop)

    /// Stored messages of one commit, in order (`OutboxItem.messages`): as `deliverMessage` each, with one look at
    /// the session's phase for the run.
    func deliverMessages(_ messages: [OutboundMessage]) {
        guard !closed else { return }
        guard !messaging.holding else {
            for message in messages { deliverMessage(message) }
            return
        }
        port.sendShared(messages, keeping: { self.markLive($0) })
    }

    /// Whether a live message is to be sent: not if this connection had its seq already (a held event the catch-up
    /// sent); else its seq is recorded as sent live.
    private func markLive(_ message: OutboundMessage) -> Bool {
        messaging.seqs[IDKey(message.conversationId), default: ConversationSeqs()].insertLive(message.seq)
    }

    /// A live message event for this connection.
    func deliverMessage(_ message: OutboundMessage) {
        guard !closed else { return }
        if messaging.holding {
            messaging.held.append(message)
            if messaging.held.count > config.maxHeldDuringSync {
                // The client resumes from history after reconnecting: nothing is lost.
                port.closeWebSocket(code: 1013, reason: "too many messages during resume")
            }
            return
        }
        port.sendShared(message, keeping: { self.markLive($0) })
    }

    /// A presence or typing event: conflated per source while the connection is backed up.
    func sendEphemeral(_ bytes: [UInt8], source: String) {
        guard !closed else { return }
        if port.outboundBytes > config.conflateAboveBytes || !messaging.conflated.isEmpty {
            if messaging.conflated.updateValue(bytes, forKey: source) == nil { messaging.conflatedOrder.append(source) }
            return
        }
        port.sendText(bytes)
    }

    /// The outbound queue drained (or the connection closed: `open` false).
    func outboundDrained(open: Bool) {
        if open && !messaging.conflated.isEmpty {
            let order = messaging.conflatedOrder
            let events = messaging.conflated
            messaging.conflated = [:]
            messaging.conflatedOrder = []
            for source in order where !closed { if let bytes = events[source] { port.sendText(bytes) } }
        }
        let waiters = messaging.drainWaiters
        messaging.drainWaiters = []
        for waiter in waiters { waiter(open) }
    }

    /// Calls `body(true)` once the outbound queue is below half the limit (at once if it is), or `body(false)`
    /// if the connection closes first.
    func whenWritable(_ body: @escaping @Sendable (Bool) -> Void) {
        if closed {
            body(false)
        } else if port.outboundBytes <= services.outboundLimit / 2 {
            body(true)
        } else {
            messaging.drainWaiters.append(body)
        }
    }

    /// The device this connection is (after authentication).
    var device: Device? {
        guard let identity else { return nil }
        return Device(sessionId: identity.sessionId, userId: identity.userId, connection: connectionId)
    }

    // MARK: resume

    /// Runs a `sync`: the catch-up of every conversation after `since`, paced by the outbound queue, while live
    /// events are held; then the reply and the held events.
    func startSync(_ id: RequestID, since: [Int64: Int64], userId: Int64, service: MessagingService) {
        guard !messaging.syncing else {
            fail(id, ProtocolError(id: id, code: .badRequest, message: "a sync is already running on this connection"))
            return
        }
        messaging.syncing = true
        messaging.holding = true
        let chunk = config.syncChunk
        let me = LoopBound(self)
        Task(executorPreference: services.executor) {
            var summary: [SyncResult.Entry] = []
            var count = 0
            var failure: ServiceError?
            do throws(MessagingError) {
                let memberships = try await service.memberships(userId: userId)
                conversations: for m in memberships {
                    summary.append(SyncResult.Entry(conversationId: m.id, lastSeq: m.lastSeq))
                    var cursor = max(since[m.id] ?? m.range.joinedSeq, m.range.joinedSeq)
                    let upTo = min(m.lastSeq, m.range.leftSeq ?? Int64.max)
                    while cursor < upTo {
                        let after = cursor
                        let page = try await service.catchUp(
                            userId: userId, conversationId: m.id, range: m.range, after: after, upTo: upTo, limit: chunk
                        )
                        guard let last = page.last else { break }
                        cursor = last.seq
                        count += page.count
                        let outbound = page.map(OutboundMessage.init)
                        let open = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                            me.execute(
                                { app in
                                    app.sendCatchUp(outbound)
                                    app.whenWritable { continuation.resume(returning: $0) }
                                }, orElse: { continuation.resume(returning: false) })
                        }
                        if !open { break conversations }
                        if page.count < chunk { break }
                    }
                }
            } catch {
                failure = error.wire
            }
            let result = SyncResult(conversations: summary, messages: count)
            let failed = failure
            me.execute { app in
                if let failed {
                    app.port.sendText(ProtocolCodec.encodeError(id: id, code: failed.code, message: failed.message))
                } else {
                    app.port.sendText(ProtocolCodec.encodeReply(id: id, result: result))
                }
                app.finishSync()
            }
        }
    }

    private func sendCatchUp(_ messages: [OutboundMessage]) {
        for m in messages {
            // A failed write closes the connection in the middle of the page.
            guard !closed else { return }
            // Skip exactly what this connection was sent live.
            if messaging.seqs[IDKey(m.conversationId)]?.wasSentLive(m.seq) == true { continue }
            messaging.seqs[IDKey(m.conversationId), default: ConversationSeqs()].insertCaughtUp(m.seq)
            port.sendShared(m)
        }
    }

    private func finishSync() {
        messaging.syncing = false
        messaging.holding = false
        let held = messaging.held
        messaging.held = []
        for m in held { deliverMessage(m) }
    }
}
