//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

/// Per-connection messaging state; protected by the connection's loop queue (owned by `ProtocolApplication`).
struct ConnectionMessaging {
    /// Live message events are held: a `sync` runs, or the client authenticated with `resume` and its `sync`
    /// is still to come.
    var holding = false
    /// A `sync` runs.
    var syncing = false
    var held: [OutboundMessage] = []
    /// Exactly the seqs sent on this connection per conversation, live or by a catch-up: a live event is not
    /// sent twice (a held one the catch-up sent already).
    var sent: [Int64: SentSeqs] = [:]
    /// Exactly the seqs sent live per conversation: a catch-up skips these and sends every other seq it reads
    /// (a `sync` asked for again repeats its earlier catch-up; the client drops what it has). Live delivery is
    /// in seq order but can have gaps (a commit whose answer was lost and could not be resolved is not
    /// delivered live), so this is an exact record, not a range.
    var live: [Int64: SentSeqs] = [:]
    /// Presence and typing events waiting for the connection to drain, latest per source.
    var conflated: [String: [UInt8]] = [:]
    var conflatedOrder: [String] = []
    /// Work waiting for the outbound queue to drain (catch-up pacing).
    var drainWaiters: [@Sendable (Bool) -> Void] = []
}

extension ProtocolApplication {
    static let messagingOps: Set<String> = [
        "conversations.list", "conversations.get", "conversations.direct", "conversations.read", "groups.create",
        "groups.add", "groups.leave", "groups.rename", "messages.send", "messages.history", "messages.delete",
        "messages.hide", "sync", "presence.set", "typing",
    ]

    var hub: MessageHub { services.messages }
    var config: MessagingConfiguration { services.messages.configuration }

    // MARK: delivery (on the loop)

    /// A live message event for this connection.
    func deliverMessage(_ message: OutboundMessage) {
        guard !closed else { return }
        if messaging.holding {
            messaging.held.append(message)
            if messaging.held.count > config.maxHeldDuringSync {
                // The client resumes from history after reconnecting: nothing is lost.
                session.closeWebSocket(code: 1013, reason: "too many messages during resume")
            }
            return
        }
        // Not twice (a held event the catch-up sent already).
        guard messaging.sent[message.conversationId, default: SentSeqs()].insert(message.seq) else { return }
        messaging.live[message.conversationId, default: SentSeqs()].insert(message.seq)
        session.sendShared(message)
    }

    /// A presence or typing event: conflated per source while the connection is backed up.
    func sendEphemeral(_ bytes: [UInt8], source: String) {
        guard !closed else { return }
        if session.connection.outboundBytes > config.conflateAboveBytes || !messaging.conflated.isEmpty {
            if messaging.conflated.updateValue(bytes, forKey: source) == nil { messaging.conflatedOrder.append(source) }
            return
        }
        session.send(.text, bytes)
    }

    /// The outbound queue drained (or the connection closed: `open` false).
    func outboundDrained(open: Bool) {
        if open && !messaging.conflated.isEmpty {
            let order = messaging.conflatedOrder
            let events = messaging.conflated
            messaging.conflated = [:]
            messaging.conflatedOrder = []
            for source in order where !closed { if let bytes = events[source] { session.send(.text, bytes) } }
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
        } else if session.connection.outboundBytes <= services.outboundLimit / 2 {
            body(true)
        } else {
            messaging.drainWaiters.append(body)
        }
    }

    // MARK: ops

    struct ConversationParams: Decodable { var conversationId: Int64 }
    struct DirectParams: Decodable { var userId: Int64 }
    struct CreateGroupParams: Decodable {
        var name: String?
        var memberIds: [Int64]
    }
    struct AddMemberParams: Decodable {
        var conversationId: Int64
        var userId: Int64
    }
    struct RenameParams: Decodable {
        var conversationId: Int64
        var name: String
    }
    struct SendParams: Decodable {
        var conversationId: Int64?
        var userId: Int64?
        var clientId: String?
        var text: String?
        var voiceId: Int64?
    }
    struct HistoryParams: Decodable {
        var conversationId: Int64
        var before: Int64?
        var limit: Int?
    }
    struct MessageIDParams: Decodable { var messageId: Int64 }
    struct ReadParams: Decodable {
        var conversationId: Int64
        var seq: Int64
    }
    struct SyncParams: Decodable { var since: [String: Int64]? }
    struct PresenceParams: Decodable { var status: String }
    struct TypingParams: Decodable {
        var conversationId: Int64
        var activity: String?
        var active: Bool?
    }
    struct ConversationsResult: Encodable, Sendable { var conversations: [ConversationSummary] }
    struct ConversationResult: Encodable, Sendable { var conversation: ConversationSummary }
    struct MessageResult: Encodable, Sendable { var message: ChatMessage }
    struct HistoryResult: Encodable, Sendable {
        var messages: [ChatMessage]
        var hasMore: Bool
    }
    struct ReadResult: Encodable, Sendable { var readSeq: Int64 }
    struct SyncConversation: Encodable, Sendable {
        var conversationId: Int64
        var lastSeq: Int64
    }
    struct SyncResult: Encodable, Sendable {
        var conversations: [SyncConversation]
        var messages: Int
    }

    /// The device this connection is (after authentication).
    var device: Device? {
        guard let identity else { return nil }
        return Device(sessionId: identity.sessionId, userId: identity.userId, connection: connectionId)
    }

    /// `{"ok":{"conversation_id","message_id","seq","ts"},"re":id}` without `JSONEncoder` (the hot path; a
    /// unit test compares it with `ProtocolCodec.encodeReply`).
    static func ackJSON(_ id: RequestID, _ m: ChatMessage) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ok")
        w.beginObject()
        w.key("conversation_id")
        w.int(m.conversationId)
        w.key("message_id")
        w.int(m.id)
        w.key("seq")
        w.int(m.seq)
        w.key("ts")
        w.string(m.ts)
        w.endObject()
        w.key("re")
        switch id {
        case .int(let i): w.int(i)
        case .string(let s): w.string(s)
        }
        w.endObject()
        return w.bytes
    }

    func handleMessaging(_ envelope: RequestEnvelope, identity: Identity) {
        let id = envelope.id
        let me = identity.userId
        let pool = services.accounts.pool
        let hub = self.hub
        let config = self.config
        guard let device else { return }
        switch envelope.op {
        case "messages.send":
            guard let p = params(SendParams.self, envelope) else { return }
            if let clientId = p.clientId, let problem = StoredText.problem(clientId, config.clientIdRule) {
                fail(id, ProtocolError(id: id, code: .badRequest, message: problem))
                return
            }
            if let retryAfter = hub.sendLimiter.attempt(me, now: EventLoop.now()).retryAfterMilliseconds {
                session.send(
                    .text,
                    ProtocolCodec.encodeError(id: id, code: .rateLimited, message: "too many messages", extra: ["retry_after_ms": retryAfter]))
                return
            }
            let kind: ChatMessage.Kind
            switch (p.text, p.voiceId) {
            case (let text?, nil):
                if let problem = StoredText.problem(text, config.textRule) {
                    session.send(.text, ProtocolCodec.encodeError(id: id, code: .invalidText, message: problem))
                    return
                }
                kind = .text
            case (nil, _?):
                kind = .voice
            default:
                fail(id, ProtocolError(id: id, code: .badRequest, message: "give text or voice_id (one of them)"))
                return
            }
            let text = p.text ?? ""
            // A voice message carries its clip's metadata; the clip must be the sender's own upload.
            let submitWith: @Sendable (Int64, String, Int64?) -> Void = { conversationId, body, voiceId in
                hub.submit(
                    WriteRequest(
                        conversationId: conversationId, actor: me,
                        action: .send(kind: kind, body: body, clientId: p.clientId, voiceId: voiceId), origin: device,
                        reply: .ack(id)))
            }
            let resolve: @Sendable () async throws(ServiceError) -> (Int64, String, Int64?) = { () async throws(ServiceError) in
                var conversationId = p.conversationId
                if conversationId == nil, let other = p.userId { conversationId = try await Self.direct(pool, me, other) }
                guard let conversationId else { throw ServiceError(.badRequest, "give conversation_id or user_id") }
                guard let voiceId = p.voiceId else { return (conversationId, text, nil) }
                let clip: VoiceClip?
                do {
                    clip = try await pool.withConnection({ db in try VoiceStore.owned(db, id: voiceId, by: me) })
                } catch { throw ServiceError.from(error) }
                guard let clip else { throw ServiceError(.notFound, "no such voice clip of yours") }
                return (conversationId, clip.attachment.json, voiceId)
            }
            if kind == .text, let conversationId = p.conversationId {
                // The hot path: no database round trip before the writer.
                submitWith(conversationId, text, nil)
            } else {
                run(id, resolve, replyWith: { _, r in submitWith(r.0, r.1, r.2) })
            }
        case "conversations.list":
            let limit = config.maxConversationsListed
            run(id, { () async throws(ServiceError) -> ConversationsResult in
                do {
                    return ConversationsResult(
                        conversations: try await pool.withConnection { db in try MessageStore.summaries(db, userId: me, limit: limit) })
                } catch { throw ServiceError.from(error) }
            })
        case "conversations.get":
            guard let p = params(ConversationParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> ConversationResult in
                try await Self.summary(pool, me, p.conversationId)
            })
        case "conversations.direct":
            guard let p = params(DirectParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> ConversationResult in
                let conversationId = try await Self.direct(pool, me, p.userId)
                return try await Self.summary(pool, me, conversationId)
            })
        case "groups.create":
            guard let p = params(CreateGroupParams.self, envelope) else { return }
            let others = Array(Set(p.memberIds.filter { $0 != me })).sorted()
            guard others.count >= 2 else {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "a group needs at least two friends besides you"))
                return
            }
            guard others.count < config.maxGroupMembers else {
                session.send(.text, ProtocolCodec.encodeError(id: id, code: .tooMany, message: "a group has at most \(config.maxGroupMembers) members"))
                return
            }
            if let name = p.name, let problem = Self.nameProblem(name, config) {
                fail(id, ProtocolError(id: id, code: .badRequest, message: problem))
                return
            }
            let name = p.name
            run(id, { () async throws(ServiceError) -> ChatMessage in
                do {
                    return try await pool.transaction { db in
                        let friends = try FriendRepository.areFriends(db, pairs: Set(others.map { FriendRepository.Pair(me, $0) }))
                        guard friends.count == others.count else {
                            throw ServiceError(.notFriends, "every member must be your friend")
                        }
                        return try MessageStore.createGroup(db, creator: me, name: name, members: others)
                    }
                } catch { throw ServiceError.from(error) }
            }, replyWith: { app, message in
                // Delivered by the conversation's writer, so that it precedes every later message; the reply
                // (the new conversation) follows the announcement.
                hub.submit(
                    WriteRequest(
                        conversationId: message.conversationId, actor: me, action: .announce(message), origin: device,
                        reply: .announced(id)))
                _ = app
            })
        case "groups.add":
            guard let p = params(AddMemberParams.self, envelope) else { return }
            hub.submit(
                WriteRequest(
                    conversationId: p.conversationId, actor: me, action: .add(userId: p.userId), origin: device,
                    reply: .message(id)))
        case "groups.leave":
            guard let p = params(ConversationParams.self, envelope) else { return }
            hub.submit(
                WriteRequest(
                    conversationId: p.conversationId, actor: me, action: .leave, origin: device, reply: .message(id)))
        case "groups.rename":
            guard let p = params(RenameParams.self, envelope) else { return }
            if let problem = Self.nameProblem(p.name, config) {
                fail(id, ProtocolError(id: id, code: .badRequest, message: problem))
                return
            }
            hub.submit(
                WriteRequest(
                    conversationId: p.conversationId, actor: me, action: .rename(p.name), origin: device,
                    reply: .message(id)))
        case "messages.delete":
            guard let p = params(MessageIDParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> Int64 in
                do {
                    guard let info = try await pool.withConnection({ db in try MessageStore.messageInfo(db, messageId: p.messageId) }) else {
                        throw ServiceError.noSuchMessage
                    }
                    return info.conversationId
                } catch { throw ServiceError.from(error) }
            }, replyWith: { _, conversationId in
                hub.submit(
                    WriteRequest(
                        conversationId: conversationId, actor: me, action: .delete(messageId: p.messageId), origin: device,
                        reply: .message(id)))
            })
        case "messages.history":
            guard let p = params(HistoryParams.self, envelope) else { return }
            let limit = p.limit ?? config.historyDefaultLimit
            guard (1...config.historyMaxLimit).contains(limit) else {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "limit must be 1 to \(config.historyMaxLimit)"))
                return
            }
            // Any Int64 is safe further down (no arithmetic overflows); a cursor below 1 is nonsense.
            if let before = p.before, before < 1 {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "before must be a sequence number (1 or more)"))
                return
            }
            run(id, { () async throws(ServiceError) -> HistoryResult in
                do {
                    return try await pool.withConnection { db in
                        guard let range = try MessageStore.membership(db, conversationId: p.conversationId, userId: me) else {
                            throw ServiceError.notMember
                        }
                        let page = try MessageStore.messages(
                            db, conversationId: p.conversationId, userId: me, range: range, before: p.before ?? Int64.max, limit: limit + 1)
                        return HistoryResult(messages: Array(page.prefix(limit)), hasMore: page.count > limit)
                    }
                } catch { throw ServiceError.from(error) }
            })
        case "messages.hide":
            guard let p = params(MessageIDParams.self, envelope) else { return }
            let deliveries = services.deliveries
            run(id, { () async throws(ServiceError) -> Empty in
                do {
                    let conversationId = try await pool.withConnection { db in
                        guard let info = try MessageStore.messageInfo(db, messageId: p.messageId),
                            let range = try MessageStore.membership(db, conversationId: info.conversationId, userId: me),
                            range.sees(info.seq)
                        else { throw ServiceError.noSuchMessage }
                        try ConversationRepository.hide(db, messageId: p.messageId, for: me)
                        return info.conversationId
                    }
                    deliveries.push(
                        PushEvent(
                            users: [me],
                            bytes: ProtocolCodec.encodeEvent(
                                "message.hidden", ["conversation_id": conversationId, "message_id": p.messageId])))
                    return Empty()
                } catch { throw ServiceError.from(error) }
            })
        case "conversations.read":
            guard let p = params(ReadParams.self, envelope) else { return }
            guard p.seq >= 0 else {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "seq must be a sequence number (0 or more)"))
                return
            }
            let deliveries = services.deliveries
            let selfKey = connectionId
            run(id, { () async throws(ServiceError) -> ReadResult in
                do {
                    let (readSeq, members) = try await pool.withConnection { db in
                        guard let readSeq = try ConversationRepository.markRead(db, conversationId: p.conversationId, user: me, seq: p.seq)
                        else { throw ServiceError.notMember }
                        let members = try ConversationRepository.activeMembers(db, conversationId: p.conversationId)
                        return (readSeq, members)
                    }
                    let event = ProtocolCodec.encodeEvent(
                        "conversation.read", ["conversation_id": p.conversationId, "user_id": me, "seq": readSeq])
                    deliveries.send(event, toUsers: members, except: selfKey)
                    return ReadResult(readSeq: readSeq)
                } catch { throw ServiceError.from(error) }
            })
        case "sync":
            guard let p = params(SyncParams.self, envelope) else { return }
            var since: [Int64: Int64] = [:]
            for (key, value) in p.since ?? [:] {
                guard let c = Int64(key), value >= 0 else {
                    fail(id, ProtocolError(id: id, code: .badRequest, message: "since maps conversation ids to sequence numbers"))
                    return
                }
                since[c] = value
            }
            startSync(id, since: since, userId: me)
        case "presence.set":
            guard let p = params(PresenceParams.self, envelope) else { return }
            guard let status = PresenceStatus(rawValue: p.status), status != .offline else {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "status must be online or away"))
                return
            }
            services.presence.set(device, status: status)
            session.send(.text, ProtocolCodec.encodeReply(id: id, result: Empty()))
        case "typing":
            guard let p = params(TypingParams.self, envelope) else { return }
            let activity = p.activity ?? "typing"
            guard activity == "typing" || activity == "recording" else {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "activity must be typing or recording"))
                return
            }
            if let retryAfter = hub.typingLimiter.attempt(me, now: EventLoop.now()).retryAfterMilliseconds {
                session.send(
                    .text,
                    ProtocolCodec.encodeError(
                        id: id, code: .rateLimited, message: "too many typing updates", extra: ["retry_after_ms": retryAfter]))
                return
            }
            hub.writer(for: p.conversationId).typing(
                conversationId: p.conversationId, userId: me, activity: activity, active: p.active ?? true, origin: device, id: id)
        default:
            session.send(.text, ProtocolCodec.encodeError(id: id, code: .unknownOp, message: "unknown op \(envelope.op.prefix(64))"))
        }
    }

    static func nameProblem(_ name: String, _ config: MessagingConfiguration) -> String? {
        StoredText.problem(name, config.groupNameRule)
    }

    /// The direct conversation with a friend (created on first use).
    static func direct(_ pool: DatabasePool, _ me: Int64, _ other: Int64) async throws(ServiceError) -> Int64 {
        guard other != me else { throw ServiceError(.badRequest, "a conversation with yourself is not possible") }
        do {
            return try await pool.withConnection { db in
                guard try FriendRepository.areFriends(db, me, other) else { throw ServiceError(.notFriends, "you can only message friends") }
                return try MessageStore.directConversation(db, me, other)
            }
        } catch { throw ServiceError.from(error) }
    }

    static func summary(_ pool: DatabasePool, _ me: Int64, _ conversationId: Int64) async throws(ServiceError) -> ConversationResult {
        do {
            guard let summary = try await pool.withConnection({ db in try MessageStore.summaries(db, userId: me, only: conversationId, limit: 1) }).first
            else { throw ServiceError.notMember }
            return ConversationResult(conversation: summary)
        } catch { throw ServiceError.from(error) }
    }

    // MARK: resume

    private func startSync(_ id: RequestID, since: [Int64: Int64], userId: Int64) {
        guard !messaging.syncing else {
            fail(id, ProtocolError(id: id, code: .badRequest, message: "a sync is already running on this connection"))
            return
        }
        messaging.syncing = true
        messaging.holding = true
        let pool = services.accounts.pool
        let chunk = config.syncChunk
        let me = LoopBound(self, loop: loop)
        Task(executorPreference: services.executor) {
            var summary: [SyncConversation] = []
            var count = 0
            var failure: ServiceError?
            do {
                let memberships = try await pool.withConnection { db in try MessageStore.memberships(db, userId: userId) }
                conversations: for m in memberships {
                    summary.append(SyncConversation(conversationId: m.id, lastSeq: m.lastSeq))
                    var cursor = max(since[m.id] ?? m.range.joinedSeq, m.range.joinedSeq)
                    let upTo = min(m.lastSeq, m.range.leftSeq ?? Int64.max)
                    while cursor < upTo {
                        let after = cursor
                        let page = try await pool.withConnection { db in
                            try MessageStore.messages(db, conversationId: m.id, userId: userId, range: m.range, after: after, upTo: upTo, limit: chunk)
                        }
                        guard let last = page.last else { break }
                        cursor = last.seq
                        count += page.count
                        let outbound = page.map(OutboundMessage.init)
                        let open = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                            me.execute({ app in
                                app.sendCatchUp(outbound)
                                app.whenWritable { continuation.resume(returning: $0) }
                            }, orElse: { continuation.resume(returning: false) })
                        }
                        if !open { break conversations }
                        if page.count < chunk { break }
                    }
                }
            } catch {
                failure = ServiceError.from(error)
            }
            let result = SyncResult(conversations: summary, messages: count)
            let failed = failure
            me.execute { app in
                if let failed {
                    app.session.send(.text, ProtocolCodec.encodeError(id: id, code: failed.code, message: failed.message))
                } else {
                    app.session.send(.text, ProtocolCodec.encodeReply(id: id, result: result))
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
            if messaging.live[m.conversationId]?.contains(m.seq) == true { continue }
            messaging.sent[m.conversationId, default: SentSeqs()].insert(m.seq)
            session.sendShared(m)
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
