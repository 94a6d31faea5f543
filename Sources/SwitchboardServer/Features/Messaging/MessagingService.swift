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

/// Messaging's use cases that are not writes of a conversation's writer (docs/protocol.md, "Messaging"): the rules
/// a request must pass before its hand-off (`messages.send`, `groups.*`, `messages.delete`), the direct
/// conversation's resolution, reads (conversation lists, history pages, the catch-up's pages), read markers,
/// hiding and pins. Each use case owns its transaction on the database seam and returns the events to tell;
/// nothing here touches a socket, a loop or the outbox.
///
/// Stored writes that take a seq (messages, members, names, deletions) stay the writers' (`MessageHub`, rules in
/// `MessageBatch`): the handlers hand them over after these checks. Every op given a conversation the caller is not
/// a member of answers `notMember`, every op given a message the caller cannot see `noSuchMessage`, whether it
/// exists or not.
final class MessagingService: Sendable {
    let db: any Database
    let configuration: MessagingConfiguration
    /// `messages.send`, `messages.pin` and `messages.unpin` per user (the message bucket, all devices together).
    let sendLimiter: SharedRateLimiter<Int64>
    /// Monotonic nanoseconds for the rate limiter (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(db: any Database, configuration: MessagingConfiguration, clock: any EngineClock = SystemClock()) {
        self.db = db
        self.configuration = configuration
        self.clock = clock
        sendLimiter = SharedRateLimiter(
            capacity: configuration.sendBurst, refillPerSecond: configuration.sendsPerSecond)
    }

    // MARK: sending

    /// The checks of `messages.send` before anything is read or handed over (on the loop: no await, no
    /// allocation unless it refuses): the `client_id`, the caller's message bucket, one of `text` and `voice_id`
    /// with a valid text. Returns the message's kind.
    func admitSend(
        userId: Int64, limitShare: Int, clientId: String?, text: String?, voiceId: Int64?
    ) throws(MessagingError) -> ChatMessage.Kind {
        if let clientId, let problem = StoredText.problem(clientId, configuration.clientIdRule) {
            throw .invalidParameter(problem)
        }
        try countMessage(userId: userId, limitShare: limitShare)
        switch (text, voiceId) {
        case (let text?, nil):
            if let problem = StoredText.problem(text, configuration.textRule) { throw .invalidText(problem) }
            return .text
        case (nil, _?):
            return .voice
        default:
            throw .textOrVoice
        }
    }

    /// What `messages.send` needs beyond the hot path (a `user_id` or a voice clip): the conversation (the direct
    /// conversation with `otherUser`, created on first use, when no `conversationId` is given), the body (a voice
    /// clip's attachment: the clip must be the sender's own upload) and the clip's id.
    func resolveSend(
        userId: Int64, conversationId: Int64?, otherUser: Int64?, text: String, voiceId: Int64?
    ) async throws(MessagingError) -> (conversationId: Int64, body: String, voiceId: Int64?) {
        var conversationId = conversationId
        if conversationId == nil, let otherUser { conversationId = try await directConversationId(userId, otherUser) }
        guard let conversationId else { throw .conversationOrUser }
        guard let voiceId else { return (conversationId, text, nil) }
        let clip = try await db.read(as: MessagingError.self) { db in try VoiceStore.owned(db, id: voiceId, by: userId)
        }
        guard let clip else { throw .noSuchVoiceClip }
        return (conversationId, clip.attachment.json, voiceId)
    }

    /// Takes one token of the caller's message bucket, or refuses with its retry time.
    func countMessage(userId: Int64, limitShare: Int) throws(MessagingError) {
        let attempt = sendLimiter.attempt(userId, now: clock.now(), sharedBy: limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds { throw .rateLimited(retryAfterMilliseconds: retryAfter) }
    }

    // MARK: conversations

    /// `conversations.list`: the viewer's conversations, latest activity first.
    func conversations(viewer: Int64) async throws(MessagingError) -> ConversationsResult {
        let limit = configuration.maxConversationsListed
        return ConversationsResult(
            conversations: try await db.read(as: MessagingError.self) { db in
                try MessageStore.summaries(db, userId: viewer, limit: limit)
            })
    }

    /// `conversations.get`: one conversation of the viewer's (`notMember` otherwise).
    func conversation(_ conversationId: Int64, viewer: Int64) async throws(MessagingError) -> ConversationResult {
        try await Self.summary(db, viewer: viewer, conversationId: conversationId)
    }

    /// The summary of a conversation as `viewer` sees it (also the reply to `groups.create` once the writer
    /// announced the group).
    static func summary(
        _ db: any Database, viewer: Int64, conversationId: Int64
    ) async throws(MessagingError) -> ConversationResult {
        let found = try await db.read(as: MessagingError.self) { db in
            try MessageStore.summaries(db, userId: viewer, only: conversationId, limit: 1).first
        }
        guard let found else { throw .notMember }
        return ConversationResult(conversation: found)
    }

    /// `conversations.direct`: the direct conversation with another user, created on first use.
    func direct(_ userId: Int64, with other: Int64) async throws(MessagingError) -> ConversationResult {
        let conversationId = try await directConversationId(userId, other)
        return try await conversation(conversationId, viewer: userId)
    }

    /// The direct conversation of `userId` with `other` (created on first use) under the other's DM policy
    /// (Social): a block either way answers as if the user did not exist; a refusal is `notFriends`.
    func directConversationId(_ userId: Int64, _ other: Int64) async throws(MessagingError) -> Int64 {
        guard other != userId else { throw .conversationWithYourself }
        return try await db.read(as: MessagingError.self) { db in
            switch try SocialGraphRepository.directAccess(db, from: userId, to: other) {
            case .allowed: break
            case .blocked: throw MessagingError.noSuchUser
            case .refused: throw MessagingError.notFriends
            }
            return try MessageStore.directConversation(db, userId, other)
        }
    }

    /// `conversations.read`: moves the caller's read marker forward (never back, never past the end); every
    /// current member hears `conversation.read` (the handler leaves out the connection that read).
    func markRead(
        userId: Int64, conversationId: Int64, seq: Int64
    ) async throws(MessagingError) -> (Ops.ConversationsRead.Result, [DomainEvent]) {
        guard seq >= 0 else { throw .readSeqNegative }
        let (readSeq, members) = try await db.read(as: MessagingError.self) { db in
            guard
                let readSeq = try ConversationRepository.markRead(
                    db, conversationId: conversationId, user: userId, seq: seq)
            else { throw MessagingError.notMember }
            return (readSeq, try ConversationRepository.activeMembers(db, conversationId: conversationId))
        }
        let event = ReadReceipt(conversationId: conversationId, userId: userId, seq: readSeq)
        return (.init(readSeq: readSeq), [DomainEvent(to: members, event)])
    }

    // MARK: groups

    /// The checks of a group name (`groups.create`, `groups.rename`).
    func checkGroupName(_ name: String) throws(MessagingError) {
        if let problem = StoredText.problem(name, configuration.groupNameRule) { throw .invalidParameter(problem) }
    }

    /// `groups.create`: at least two friends besides the creator, fewer than `maxGroupMembers`, every one a friend;
    /// the group and its first (system) message stored in one transaction. The writer announces it next.
    func createGroup(creator: Int64, memberIds: [Int64], name: String?) async throws(MessagingError) -> ChatMessage {
        let others = Array(Set(memberIds.filter { $0 != creator })).sorted()
        guard others.count >= 2 else { throw .groupTooSmall }
        guard others.count < configuration.maxGroupMembers else {
            throw .groupTooLarge(max: configuration.maxGroupMembers)
        }
        if let name { try checkGroupName(name) }
        return try await db.write(as: MessagingError.self) { db in
            let pairs = Set(others.map { FriendRepository.Pair(creator, $0) })
            guard try FriendRepository.areFriends(db, pairs: pairs).count == others.count else {
                throw MessagingError.membersNotFriends
            }
            return try MessageStore.createGroup(db, creator: creator, name: name, members: others)
        }
    }

    // MARK: messages

    /// `messages.history`: a page of the messages the viewer sees, newest first, with their reactions.
    func history(
        viewer: Int64, conversationId: Int64, before: Int64?, limit: Int?
    ) async throws(MessagingError) -> HistoryResult {
        let limit = limit ?? configuration.historyDefaultLimit
        guard (1...configuration.historyMaxLimit).contains(limit) else {
            throw .historyLimit(max: configuration.historyMaxLimit)
        }
        // Any Int64 is safe further down (no arithmetic overflows); a cursor below 1 is nonsense.
        if let before, before < 1 { throw .beforeNotASequenceNumber }
        return try await db.read(as: MessagingError.self) { db in
            guard let range = try MessageStore.membership(db, conversationId: conversationId, userId: viewer) else {
                throw MessagingError.notMember
            }
            let page = try MessageStore.messages(
                db, conversationId: conversationId, userId: viewer, range: range, before: before ?? Int64.max,
                limit: limit + 1)
            let messages = try ReactionRepository.attach(db, to: Array(page.prefix(limit)), viewer: viewer)
            return HistoryResult(messages: messages, hasMore: page.count > limit)
        }
    }

    /// The conversation of a message (`messages.delete` hands the deletion to that conversation's writer, which
    /// checks that the caller sees it and may delete it).
    func conversationOf(message messageId: Int64) async throws(MessagingError) -> Int64 {
        let info = try await db.read(as: MessagingError.self) { db in
            try MessageStore.messageInfo(db, messageId: messageId)
        }
        guard let info else { throw .noSuchMessage }
        return info.conversationId
    }

    /// `messages.hide`: hides a message the caller sees, for the caller only (idempotent); the caller's devices
    /// hear `message.hidden`.
    func hide(userId: Int64, messageId: Int64) async throws(MessagingError) -> [DomainEvent] {
        let conversationId = try await db.read(as: MessagingError.self) { db in
            guard let info = try MessageStore.messageInfo(db, messageId: messageId),
                let range = try MessageStore.membership(db, conversationId: info.conversationId, userId: userId),
                range.sees(info.seq)
            else { throw MessagingError.noSuchMessage }
            try ConversationRepository.hide(db, messageId: messageId, for: userId)
            return info.conversationId
        }
        return [DomainEvent(to: [userId], HiddenMessage(conversationId: conversationId, messageId: messageId))]
    }

    // MARK: pins

    /// `messages.pin`: any current member pins a message it sees (not a system message, not a deleted one), at most
    /// `maxPinnedMessages` per conversation. A pinned message answers its stored pin and tells nobody; a new pin is
    /// told (`message.pinned`) to every current member who sees the message, the caller's devices included.
    func pin(_ caller: Caller, messageId: Int64) async throws(MessagingError) -> (PinResult, [DomainEvent]) {
        try countMessage(userId: caller.userId, limitShare: caller.limitShare)
        let (userId, maxPins) = (caller.userId, configuration.maxPinnedMessages)
        let (change, pin) = try await db.write(as: MessagingError.self) { db in
            try PinRepository.pin(db, messageId: messageId, userId: userId, maxPins: maxPins)
        }
        let result = PinResult(conversationId: change.conversationId, pin: pin)
        guard change.changed else { return (result, []) }
        let event = MessagePinnedEvent(conversationId: change.conversationId, pin: pin)
        return (result, [DomainEvent(to: change.audience, event)])
    }

    /// `messages.unpin`: any current member unpins a message it sees; unpinning what is not pinned tells nobody. A
    /// change is told (`message.unpinned`) to every current member who sees the message.
    func unpin(_ caller: Caller, messageId: Int64) async throws(MessagingError) -> (UnpinResult, [DomainEvent]) {
        try countMessage(userId: caller.userId, limitShare: caller.limitShare)
        let userId = caller.userId
        let change = try await db.write(as: MessagingError.self) { db in
            try PinRepository.unpin(db, messageId: messageId, userId: userId)
        }
        let result = UnpinResult(conversationId: change.conversationId, messageId: messageId)
        guard change.changed else { return (result, []) }
        let event = MessageUnpinnedEvent(conversationId: change.conversationId, messageId: messageId, userId: userId)
        return (result, [DomainEvent(to: change.audience, event)])
    }

    /// `conversations.pins`: the pins of a conversation the viewer sees, latest pin first (current members only).
    func pins(conversationId: Int64, viewer: Int64) async throws(MessagingError) -> PinsResult {
        let maxPins = configuration.maxPinnedMessages
        let pins = try await db.read(as: MessagingError.self) { db in
            try PinRepository.list(db, conversationId: conversationId, viewer: viewer, limit: maxPins)
        }
        return PinsResult(conversationId: conversationId, pins: pins, maxPins: maxPins)
    }

    // MARK: resume

    /// `sync`'s `since`: conversation ids (JSON keys) to the last seq the client has.
    func since(_ since: [String: Int64]?) throws(MessagingError) -> [Int64: Int64] {
        var result: [Int64: Int64] = [:]
        for (key, value) in since ?? [:] {
            guard let conversationId = Int64(key), value >= 0 else { throw .badSince }
            result[conversationId] = value
        }
        return result
    }

    /// Every conversation `userId` belongs to or has left: its id, the member's range and the last seq (a catch-up's
    /// plan).
    func memberships(userId: Int64) async throws(MessagingError) -> [(
        id: Int64, range: MemberRange, lastSeq: Int64
    )] {
        try await db.read(as: MessagingError.self) { db in try MessageStore.memberships(db, userId: userId) }
    }

    /// A catch-up page: the messages of one conversation `userId` sees with `after < seq <= upTo`, ascending, at
    /// most `limit`, with their reactions.
    func catchUp(
        userId: Int64, conversationId: Int64, range: MemberRange, after: Int64, upTo: Int64, limit: Int
    ) async throws(MessagingError) -> [ChatMessage] {
        try await db.read(as: MessagingError.self) { db in
            try ReactionRepository.attach(
                db,
                to: try MessageStore.messages(
                    db, conversationId: conversationId, userId: userId, range: range, after: after, upTo: upTo,
                    limit: limit),
                viewer: userId)
        }
    }
}
