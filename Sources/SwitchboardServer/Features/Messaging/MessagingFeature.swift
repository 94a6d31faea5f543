//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

/// Conversations and messages: `conversations.*`, `groups.*`, `messages.*`, `sync`. Writes that must be
/// ordered with the message stream go to the conversation's writer (`MessageHub`); reads run off the loop.
/// The connection's delivery state (live events, held events, catch-up) is `ProtocolApplication`'s.
struct MessagingFeature: Feature {
    static let migrations: [Migration] = [.v0002Messaging, .v0006ConversationVersions]

    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.add(MessagingAccountData.deletionSteps)
        registry.add(MessagingAccountData.exportSection)
        registry.operations.register(Ops.MessagesSend.self, Self.send)
        registry.operations.register(Ops.ConversationsList.self) { s, _ async throws(ServiceError) -> ConversationsResult in
            let limit = s.services.messages.configuration.maxConversationsListed
            let me = s.userId
            do {
                return ConversationsResult(
                    conversations: try await s.services.accounts.pool.withConnection { db in try MessageStore.summaries(db, userId: me, limit: limit) })
            } catch { throw ServiceError.from(error) }
        }
        registry.operations.register(Ops.ConversationsGet.self) { s, p async throws(ServiceError) -> ConversationResult in
            try await Self.summary(s.services.accounts.pool, s.userId, p.conversationId)
        }
        registry.operations.register(Ops.ConversationsDirect.self) { s, p async throws(ServiceError) -> ConversationResult in
            let pool = s.services.accounts.pool
            let conversationId = try await Self.direct(pool, s.userId, p.userId)
            return try await Self.summary(pool, s.userId, conversationId)
        }
        registry.operations.register(Ops.GroupsCreate.self, Self.createGroup)
        registry.operations.register(Ops.GroupsAdd.self) { context, p in
            guard let device = context.device else { return }
            context.services.messages.submit(
                WriteRequest(
                    conversationId: p.conversationId, actor: context.me, action: .add(userId: p.userId), origin: device,
                    reply: .message(context.id, op: context.op)))
        }
        registry.operations.register(Ops.GroupsLeave.self) { context, p in
            guard let device = context.device else { return }
            context.services.messages.submit(
                WriteRequest(
                    conversationId: p.conversationId, actor: context.me, action: .leave, origin: device,
                    reply: .message(context.id, op: context.op)))
        }
        registry.operations.register(Ops.GroupsRename.self) { context, p in
            guard let device = context.device else { return }
            if let problem = Self.nameProblem(p.name, context.services.messages.configuration) {
                context.fail(.badRequest, problem)
                return
            }
            context.services.messages.submit(
                WriteRequest(
                    conversationId: p.conversationId, actor: context.me, action: .rename(p.name), origin: device,
                    reply: .message(context.id, op: context.op)))
        }
        registry.operations.register(Ops.MessagesDelete.self) { context, p in
            guard let device = context.device else { return }
            let pool = context.services.accounts.pool
            let hub = context.services.messages
            let me = context.me
            let id = context.id
            context.run({ () async throws(ServiceError) -> Int64 in
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
                        reply: .message(id, op: Ops.MessagesDelete.name)))
            })
        }
        registry.operations.register(Ops.MessagesHistory.self) { context, p in
            let config = context.services.messages.configuration
            let limit = p.limit ?? config.historyDefaultLimit
            guard (1...config.historyMaxLimit).contains(limit) else {
                context.fail(.badRequest, "limit must be 1 to \(config.historyMaxLimit)")
                return
            }
            // Any Int64 is safe further down (no arithmetic overflows); a cursor below 1 is nonsense.
            if let before = p.before, before < 1 {
                context.fail(.badRequest, "before must be a sequence number (1 or more)")
                return
            }
            let pool = context.services.accounts.pool
            let me = context.me
            context.run { () async throws(ServiceError) -> HistoryResult in
                do {
                    return try await pool.withConnection { db in
                        guard let range = try MessageStore.membership(db, conversationId: p.conversationId, userId: me) else {
                            throw ServiceError.notMember
                        }
                        let page = try MessageStore.messages(
                            db, conversationId: p.conversationId, userId: me, range: range, before: p.before ?? Int64.max, limit: limit + 1)
                        let messages = try ReactionRepository.attach(db, to: Array(page.prefix(limit)), viewer: me)
                        return HistoryResult(messages: messages, hasMore: page.count > limit)
                    }
                } catch { throw ServiceError.from(error) }
            }
        }
        registry.operations.register(Ops.MessagesHide.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            do {
                let conversationId = try await s.services.accounts.pool.withConnection { db in
                    guard let info = try MessageStore.messageInfo(db, messageId: p.messageId),
                        let range = try MessageStore.membership(db, conversationId: info.conversationId, userId: me),
                        range.sees(info.seq)
                    else { throw ServiceError.noSuchMessage }
                    try ConversationRepository.hide(db, messageId: p.messageId, for: me)
                    return info.conversationId
                }
                s.services.deliveries.push(
                    PushEvent(
                        users: [me],
                        bytes: ProtocolCodec.encodeEvent(
                            HiddenMessage(conversationId: conversationId, messageId: p.messageId))))
                return Empty()
            } catch { throw ServiceError.from(error) }
        }
        registry.operations.register(Ops.ConversationsRead.self) { context, p in
            guard p.seq >= 0 else {
                context.fail(.badRequest, "seq must be a sequence number (0 or more)")
                return
            }
            let pool = context.services.accounts.pool
            let deliveries = context.services.deliveries
            let selfKey = context.connection.connectionId
            let me = context.me
            context.run { () async throws(ServiceError) -> Ops.ConversationsRead.Result in
                do {
                    let (readSeq, members) = try await pool.withConnection { db in
                        guard let readSeq = try ConversationRepository.markRead(db, conversationId: p.conversationId, user: me, seq: p.seq)
                        else { throw ServiceError.notMember }
                        let members = try ConversationRepository.activeMembers(db, conversationId: p.conversationId)
                        return (readSeq, members)
                    }
                    let event = ProtocolCodec.encodeEvent(
                        ReadReceipt(conversationId: p.conversationId, userId: me, seq: readSeq))
                    deliveries.send(event, toUsers: members, except: selfKey)
                    return Ops.ConversationsRead.Result(readSeq: readSeq)
                } catch { throw ServiceError.from(error) }
            }
        }
        registry.operations.register(Ops.Sync.self) { context, p in
            var since: [Int64: Int64] = [:]
            for (key, value) in p.since ?? [:] {
                guard let c = Int64(key), value >= 0 else {
                    context.fail(.badRequest, "since maps conversation ids to sequence numbers")
                    return
                }
                since[c] = value
            }
            context.connection.startSync(context.id, since: since, userId: context.me)
        }
    }

    /// `messages.send`. The hot path (text to a `conversation_id`) hands the message to the conversation's
    /// writer straight from the loop, with no database round trip before it and a hand-written ack.
    static func send(_ context: RequestContext<Ops.MessagesSend>, _ p: Ops.MessagesSend.Parameters) {
        guard let device = context.device else { return }
        let hub = context.services.messages
        let config = hub.configuration
        let me = context.me
        let id = context.id
        if let clientId = p.clientId, let problem = StoredText.problem(clientId, config.clientIdRule) {
            context.fail(.badRequest, problem)
            return
        }
        if let retryAfter = hub.sendLimiter.attempt(me, now: EventLoop.now(), sharedBy: context.limitShare).retryAfterMilliseconds {
            context.fail(.rateLimited, "too many messages", extra: ["retry_after_ms": retryAfter])
            return
        }
        let kind: ChatMessage.Kind
        switch (p.text, p.voiceId) {
        case (let text?, nil):
            if let problem = StoredText.problem(text, config.textRule) {
                context.fail(.invalidText, problem)
                return
            }
            kind = .text
        case (nil, _?):
            kind = .voice
        default:
            context.fail(.badRequest, "give text or voice_id (one of them)")
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
        if kind == .text, let conversationId = p.conversationId {
            // The hot path: no database round trip before the writer.
            submitWith(conversationId, text, nil)
            return
        }
        let pool = context.services.accounts.pool
        context.run({ () async throws(ServiceError) -> (Int64, String, Int64?) in
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
        }, replyWith: { _, r in submitWith(r.0, r.1, r.2) })
    }

    /// `groups.create`: the group is stored, then announced by its writer (before any later message), then
    /// the reply (the new conversation) follows the announcement.
    static func createGroup(_ context: RequestContext<Ops.GroupsCreate>, _ p: Ops.GroupsCreate.Parameters) {
        guard let device = context.device else { return }
        let config = context.services.messages.configuration
        let me = context.me
        let others = Array(Set(p.memberIds.filter { $0 != me })).sorted()
        guard others.count >= 2 else {
            context.fail(.badRequest, "a group needs at least two friends besides you")
            return
        }
        guard others.count < config.maxGroupMembers else {
            context.fail(.tooMany, "a group has at most \(config.maxGroupMembers) members")
            return
        }
        if let name = p.name, let problem = Self.nameProblem(name, config) {
            context.fail(.badRequest, problem)
            return
        }
        let name = p.name
        let pool = context.services.accounts.pool
        let hub = context.services.messages
        let id = context.id
        context.run({ () async throws(ServiceError) -> ChatMessage in
            do {
                return try await pool.transaction { db in
                    let friends = try FriendRepository.areFriends(db, pairs: Set(others.map { FriendRepository.Pair(me, $0) }))
                    guard friends.count == others.count else {
                        throw ServiceError(.notFriends, "every member must be your friend")
                    }
                    return try MessageStore.createGroup(db, creator: me, name: name, members: others)
                }
            } catch { throw ServiceError.from(error) }
        }, replyWith: { _, message in
            hub.submit(
                WriteRequest(
                    conversationId: message.conversationId, actor: me, action: .announce(message), origin: device,
                    reply: .announced(id)))
        })
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

    static func nameProblem(_ name: String, _ config: MessagingConfiguration) -> String? {
        StoredText.problem(name, config.groupNameRule)
    }

    /// The direct conversation with a friend (created on first use).
    static func direct(_ pool: DatabasePool, _ me: Int64, _ other: Int64) async throws(ServiceError) -> Int64 {
        guard other != me else { throw ServiceError(.badRequest, "a conversation with yourself is not possible") }
        do {
            return try await pool.withConnection { db in
                // The DM policy (Social): a block either way answers as if the user did not exist.
                switch try SocialGraphRepository.directAccess(db, from: me, to: other) {
                case .allowed: break
                case .blocked: throw ServiceError(.notFound, "no such user")
                case .refused: throw ServiceError(.notFriends, "you can only message friends")
                }
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
}
