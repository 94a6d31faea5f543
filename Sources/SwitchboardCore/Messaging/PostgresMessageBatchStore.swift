//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol
public import SwitchboardStore

/// The batch store on a PostgreSQL connection (in the caller's transaction).
public struct PostgresMessageBatchStore: MessageBatchStore {
    let db: PostgresConnection

    public init(_ db: PostgresConnection) { self.db = db }

    public func lock(ids: [Int64]) throws -> [Int64: ConversationHead] {
        try MessageStore.lockHeads(db, ids: ids).heads
    }
    public func lock(
        ids: [Int64], senders: [Int64]
    ) throws -> (heads: [Int64: ConversationHead], deletedSenders: Set<Int64>) {
        let (heads, live) = try MessageStore.lockHeads(db, ids: ids, senders: senders)
        return (heads, heads.isEmpty ? [] : Set(senders).subtracting(live))
    }
    public func loadStates(ids: [Int64]) throws -> [Int64: ConversationState] {
        try MessageStore.loadStates(db, ids: ids)
    }
    public func friendPairs(_ pairs: Set<FriendRepository.Pair>) throws -> Set<FriendRepository.Pair> {
        try FriendRepository.areFriends(db, pairs: pairs)
    }
    public func directPolicy(_ pairs: Set<DirectPair>) throws -> (blocked: Set<DirectPair>, allowed: Set<DirectPair>) {
        try SocialGraphRepository.directPolicy(db, pairs)
    }
    public func existing(_ keys: [MessageStore.ClientKey]) throws -> [MessageStore.ClientKey: ChatMessage] {
        try MessageStore.existing(db, keys: keys.map { ($0.conversationId, $0.senderId, $0.clientId) })
    }
    public func messageInfo(messageId: Int64) throws -> (
        conversationId: Int64, seq: Int64, senderId: Int64?, kind: String, deleted: Bool
    )? {
        try MessageStore.messageInfo(db, messageId: messageId)
    }
    public func addMember(conversationId: Int64, userId: Int64, joinedSeq: Int64) throws {
        try MessageStore.addMember(db, conversationId: conversationId, userId: userId, joinedSeq: joinedSeq)
    }
    public func removeMember(conversationId: Int64, userId: Int64, leftSeq: Int64) throws {
        try MessageStore.removeMember(db, conversationId: conversationId, userId: userId, leftSeq: leftSeq)
    }
    public func rename(conversationId: Int64, name: String) throws {
        try MessageStore.rename(db, conversationId: conversationId, name: name)
    }
    public func markDeleted(messageId: Int64) throws { try MessageStore.markDeleted(db, messageId: messageId) }
    public func markRemoved(messageId: Int64) throws { try ModerationRepository.markRemoved(db, messageId: messageId) }
    public func insert(_ messages: [NewMessage]) throws -> [ChatMessage] {
        try Self.mappingStoredKeys { try MessageStore.insert(db, messages) }
    }
    /// One message to one conversation (every commit at a low rate, most of a chat's): one statement
    /// (`MessageStore.insertAdvancingHead`) instead of three.
    public func write(
        _ messages: [NewMessage], heads: [Int64: ConversationHead],
        marks: [(conversationId: Int64, userId: Int64, seq: Int64)]
    ) throws -> (messages: [ChatMessage], transactionId: Int64?) {
        if messages.count == 1, heads.count == 1, let (id, head) = heads.first, messages[0].conversationId == id,
            marks.allSatisfy({ $0.conversationId == id && $0.userId == marks[0].userId })
        {
            let mark = marks.max { $0.seq < $1.seq }.map { (userId: $0.userId, seq: $0.seq) }
            let (message, transactionId) = try Self.mappingStoredKeys {
                try MessageStore.insertAdvancingHead(db, messages[0], head: head, mark: mark)
            }
            return ([message], transactionId)
        }
        return try writeInSteps(messages, heads: heads, marks: marks)
    }
    /// A stored message with one of the idempotency keys (the unique index `messages_client_id`) is
    /// `MessageBatch.StoredKeyConflict`.
    private static func mappingStoredKeys<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError where error.isUniqueViolation && error.constraint == "messages_client_id" {
            throw MessageBatch.StoredKeyConflict()
        }
    }
    public func advance(heads: [Int64: ConversationHead]) throws -> Int64? {
        try MessageStore.advance(db, heads: heads)
    }
    public func markRead(_ marks: [(conversationId: Int64, userId: Int64, seq: Int64)]) throws {
        try MessageStore.markRead(db, marks: marks)
    }
}
