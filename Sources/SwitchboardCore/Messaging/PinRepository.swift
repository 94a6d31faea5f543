//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of pinned messages (table `message_pins`, migration 14). Every function takes the connection it runs
/// on and none opens a transaction of its own: `pin` runs in its caller's transaction (its limit is checked under
/// a lock of the conversation's pins). Rule violations are `MessagingError`s.
///
/// Who sees what: only current members of the conversation, and of its pins only those of messages they see (after
/// their joining, not hidden by them, not deleted for everyone). A pin takes no seq and writes no system message;
/// it does not pass through the conversation's writer (as a reaction does not).
public enum PinRepository {
    /// What `pin` or `unpin` did.
    public struct Change: Sendable, Equatable {
        /// The message's conversation.
        public var conversationId: Int64
        /// Whether anything changed (false: pinned already, or not pinned).
        public var changed: Bool
        /// The current members who see the message and have not hidden it (the event's recipients), when changed.
        public var audience: [Int64]
    }

    /// What a member may know of a message it names: the message's conversation and seq, or the refusal.
    /// A message the caller cannot see (a stranger's, before its joining, no such id) is `noSuchMessage`; one it
    /// saw but whose conversation it has left is `notMember`.
    static func visible(
        _ db: PostgresConnection, messageId: Int64, userId: Int64
    ) throws -> (conversationId: Int64, seq: Int64, kind: String, deleted: Bool) {
        guard let info = try MessageStore.messageInfo(db, messageId: messageId),
            let range = try MessageStore.membership(db, conversationId: info.conversationId, userId: userId),
            range.sees(info.seq)
        else { throw MessagingError.noSuchMessage }
        guard range.isActive else { throw MessagingError.notMember }
        return (info.conversationId, info.seq, info.kind, info.deleted)
    }

    /// Pins `messageId` for its conversation on behalf of `userId`, at most `maxPins` shown pins per conversation.
    /// - Throws: `noSuchMessage`, `notMember`, `systemMessageNotPinnable`, `messageDeleted`, `tooManyPins`.
    public static func pin(
        _ db: PostgresConnection, messageId: Int64, userId: Int64, maxPins: Int
    ) throws -> (Change, MessagePin) {
        let info = try visible(db, messageId: messageId, userId: userId)
        guard info.kind != ChatMessage.Kind.system.rawValue else { throw MessagingError.systemMessageNotPinnable }
        guard !info.deleted else { throw MessagingError.messageDeleted }
        // One pin at a time per conversation (every node): the limit holds under concurrent pins. The lock is not the
        // conversation's row lock, which the message writers take for every commit.
        try db.execute(
            cached: "SELECT pg_advisory_xact_lock(hashtextextended('message_pins:' || $1::text, 0))",
            [.int(info.conversationId)])
        if let stored = try self.pins(db, messageIds: [messageId]).first {
            return (Change(conversationId: info.conversationId, changed: false, audience: []), stored)
        }
        // Pins of messages deleted since (no longer shown) go first: they hold no place.
        try db.execute(
            cached: """
                DELETE FROM message_pins p USING messages m
                WHERE p.conversation_id = $1 AND m.id = p.message_id AND m.deleted_at IS NOT NULL
                """, [.int(info.conversationId)])
        let count =
            try db.execute(
                cached: "SELECT count(*) FROM message_pins WHERE conversation_id = $1", [.int(info.conversationId)]
            ).decodeFirst(Int64.self) ?? 0
        guard count < Int64(maxPins) else { throw MessagingError.tooManyPins(max: maxPins) }
        try db.execute(
            cached: "INSERT INTO message_pins (message_id, conversation_id, pinned_by) VALUES ($1, $2, $3)",
            [.int(messageId), .int(info.conversationId), .int(userId)])
        guard let pin = try self.pins(db, messageIds: [messageId]).first else {
            throw MessagingError.database(.failed(underlying: PinNotStored(messageId: messageId)))
        }
        let audience = try audience(db, conversationId: info.conversationId, messageId: messageId, seq: info.seq)
        return (Change(conversationId: info.conversationId, changed: true, audience: audience), pin)
    }

    /// Unpins `messageId` on behalf of `userId`. A message deleted for everyone has no shown pin any more: its row
    /// goes, and nothing is said to have changed (its tombstone told the members).
    /// - Throws: `noSuchMessage`, `notMember`.
    public static func unpin(_ db: PostgresConnection, messageId: Int64, userId: Int64) throws -> Change {
        let info = try visible(db, messageId: messageId, userId: userId)
        let removed = try !db.execute(
            cached: "DELETE FROM message_pins WHERE message_id = $1 RETURNING 1", [.int(messageId)]
        ).isEmpty
        let changed = removed && !info.deleted
        return Change(
            conversationId: info.conversationId, changed: changed,
            audience: changed
                ? try audience(db, conversationId: info.conversationId, messageId: messageId, seq: info.seq) : [])
    }

    /// The pins of `conversationId` that `viewer` sees, latest first, at most `limit`.
    /// - Throws: `notMember` unless `viewer` is a current member.
    public static func list(
        _ db: PostgresConnection, conversationId: Int64, viewer: Int64, limit: Int
    ) throws -> [MessagePin] {
        guard let range = try MessageStore.membership(db, conversationId: conversationId, userId: viewer),
            range.isActive
        else { throw MessagingError.notMember }
        return try db.execute(
            cached: """
                SELECT p.pinned_by, \(WireTimestamp.sql("p.pinned_at")), \(MessageStore.messageColumns)
                FROM message_pins p JOIN messages m ON m.id = p.message_id
                WHERE p.conversation_id = $1 AND m.deleted_at IS NULL AND m.seq > $2
                  AND NOT EXISTS (SELECT 1 FROM hidden_messages h WHERE h.user_id = $3 AND h.message_id = m.id)
                ORDER BY p.pinned_at DESC, p.message_id DESC LIMIT $4
                """, [.int(conversationId), .int(range.joinedSeq), .int(viewer), .int(Int64(max(0, limit)))]
        ).map(decodePin)
    }

    /// Pins by message id (any conversation), shown or not.
    static func pins(_ db: PostgresConnection, messageIds: [Int64]) throws -> [MessagePin] {
        try db.execute(
            cached: """
                SELECT p.pinned_by, \(WireTimestamp.sql("p.pinned_at")), \(MessageStore.messageColumns)
                FROM message_pins p JOIN messages m ON m.id = p.message_id
                WHERE p.message_id = ANY($1::bigint[]) ORDER BY p.pinned_at DESC, p.message_id DESC
                """, [.text(MessageStore.bigintArray(messageIds))]
        ).map(decodePin)
    }

    /// Decodes `pinned_by, pinned_at, messageColumns`.
    static func decodePin(_ r: PostgresRow) throws -> MessagePin {
        MessagePin(
            message: try MessageStore.message(r, offset: 2), pinnedBy: try r.decode(column: 0),
            pinnedAt: try r.decode(column: 1))
    }

    /// The current members who see the message (`seq`) and have not hidden it.
    static func audience(_ db: PostgresConnection, conversationId: Int64, messageId: Int64, seq: Int64) throws
        -> [Int64]
    {
        try db.execute(
            cached: """
                SELECT mb.user_id FROM members mb
                WHERE mb.conversation_id = $1 AND mb.left_seq IS NULL AND mb.joined_seq < $2
                  AND NOT EXISTS (SELECT 1 FROM hidden_messages h WHERE h.user_id = mb.user_id AND h.message_id = $3)
                """, [.int(conversationId), .int(seq), .int(messageId)]
        ).decode(Int64.self, column: 0)
    }

    /// A pin just inserted could not be read back in its own transaction (an invariant violation).
    struct PinNotStored: Error, CustomStringConvertible {
        let messageId: Int64
        var description: String { "pin of message \(messageId) not read back" }
    }
}
