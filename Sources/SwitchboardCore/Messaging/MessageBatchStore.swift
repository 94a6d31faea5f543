//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// What a batch of writes reads and writes, inside the batch's one transaction. `PostgresMessageBatchStore` is
/// the database's; tests use one in memory.
public protocol MessageBatchStore {
    /// Locks these conversations (ids ascending) until the transaction ends and returns their last seq and
    /// version (missing ids: no such conversation). Called first, once per batch.
    func lock(ids: [Int64]) throws -> [Int64: ConversationHead]
    /// `lock(ids:)`, and the accounts of `senders` (the batch's message senders) against deletion until the
    /// transaction ends: which of them are deleted (their messages are refused). Called first, once per batch,
    /// instead of `lock(ids:)`.
    func lock(ids: [Int64], senders: [Int64]) throws -> (heads: [Int64: ConversationHead], deletedSenders: Set<Int64>)
    /// The states of these conversations (missing ids: no such conversation).
    func loadStates(ids: [Int64]) throws -> [Int64: ConversationState]
    /// Which of these pairs are friends.
    func friendPairs(_ pairs: Set<FriendRepository.Pair>) throws -> Set<FriendRepository.Pair>
    /// Direct sends' social checks (one query): which of these (sender, recipient) pairs are blocked either way, and
    /// which the recipient's DM policy allows without a friendship (`mutuals`, `anyone`).
    func directPolicy(_ pairs: Set<DirectPair>) throws -> (blocked: Set<DirectPair>, allowed: Set<DirectPair>)
    /// Earlier messages with these idempotency keys.
    func existing(_ keys: [MessageStore.ClientKey]) throws -> [MessageStore.ClientKey: ChatMessage]
    /// A message's conversation, seq, sender, kind and whether it is deleted.
    func messageInfo(messageId: Int64) throws -> (
        conversationId: Int64, seq: Int64, senderId: Int64?, kind: String, deleted: Bool
    )?
    func addMember(conversationId: Int64, userId: Int64, joinedSeq: Int64) throws
    func removeMember(conversationId: Int64, userId: Int64, leftSeq: Int64) throws
    func rename(conversationId: Int64, name: String) throws
    func markDeleted(messageId: Int64) throws
    /// Marks a message removed by moderation (deleted too).
    func markRemoved(messageId: Int64) throws
    /// Inserts messages; returns them as stored, in the input's order.
    func insert(_ messages: [NewMessage]) throws -> [ChatMessage]
    /// Sets conversations' last seq and version; returns the transaction's id when anything was set.
    func advance(heads: [Int64: ConversationHead]) throws -> Int64?
    /// Moves senders' read markers.
    func markRead(_ marks: [(conversationId: Int64, userId: Int64, seq: Int64)]) throws
    /// The end of a batch: `insert`, `advance` and `markRead`, in that order (a store may do them at once). Returns
    /// the messages as stored and the transaction's id when any head was set.
    func write(
        _ messages: [NewMessage], heads: [Int64: ConversationHead],
        marks: [(conversationId: Int64, userId: Int64, seq: Int64)]
    ) throws -> (messages: [ChatMessage], transactionId: Int64?)
}

extension MessageBatchStore {
    public func write(
        _ messages: [NewMessage], heads: [Int64: ConversationHead],
        marks: [(conversationId: Int64, userId: Int64, seq: Int64)]
    ) throws -> (messages: [ChatMessage], transactionId: Int64?) {
        try writeInSteps(messages, heads: heads, marks: marks)
    }

    /// `write` as its three steps.
    public func writeInSteps(
        _ messages: [NewMessage], heads: [Int64: ConversationHead],
        marks: [(conversationId: Int64, userId: Int64, seq: Int64)]
    ) throws -> (messages: [ChatMessage], transactionId: Int64?) {
        let stored = try insert(messages)
        let transactionId = try advance(heads: heads)
        try markRead(marks)
        return (stored, transactionId)
    }

    /// A store without accounts: no sender is deleted.
    public func lock(
        ids: [Int64], senders: [Int64]
    ) throws -> (heads: [Int64: ConversationHead], deletedSenders: Set<Int64>) {
        (try lock(ids: ids), [])
    }

    /// A store without the social graph: nothing blocked, friends only.
    public func directPolicy(_ pairs: Set<DirectPair>) throws -> (blocked: Set<DirectPair>, allowed: Set<DirectPair>) {
        ([], [])
    }

    /// A store without a moderation column marks a removed message deleted.
    public func markRemoved(messageId: Int64) throws { try markDeleted(messageId: messageId) }
}
