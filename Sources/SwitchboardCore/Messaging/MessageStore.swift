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

/// The SQL of messaging. Every function runs on a leased connection's queue (blocking libpq calls).
public enum MessageStore {
    /// A PostgreSQL array literal of bigints.
    public static func bigintArray(_ values: some Sequence<Int64?>) -> String {
        "{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// A PostgreSQL array literal of texts (each element quoted and escaped; nil is NULL).
    public static func textArray(_ values: some Sequence<String?>) -> String {
        var out = "{"
        var first = true
        for value in values {
            if !first { out += "," }
            first = false
            guard let value else {
                out += "NULL"
                continue
            }
            out += "\""
            for ch in value.unicodeScalars {
                if ch == "\"" || ch == "\\" { out += "\\" }
                out.unicodeScalars.append(ch)
            }
            out += "\""
        }
        return out + "}"
    }

    static let messageColumns = """
        m.id, m.conversation_id, m.seq, m.sender_id, m.kind, m.body, m.client_id, \(WireTimestamp.sql("m.created_at")),
        m.deleted_at IS NOT NULL,
        m.sender_deleted
        """

    /// Decodes a row of `messageColumns` (starting at `offset`).
    static func message(_ r: PostgresRow, offset: Int = 0) throws(PostgresDecodingError) -> ChatMessage {
        let kind = try r.decode(ChatMessage.Kind.self, column: offset + 4)
        let deleted = try r.decode(Bool.self, column: offset + 8)
        let body = try r.decode(String?.self, column: offset + 5)
        var message = ChatMessage(
            id: try r.decode(column: offset + 0), conversationId: try r.decode(column: offset + 1),
            seq: try r.decode(column: offset + 2),
            senderId: try r.decode(column: offset + 3), kind: kind, clientId: try r.decode(column: offset + 6),
            ts: try r.decode(column: offset + 7), deleted: deleted ? true : nil,
            senderDeleted: try r.decode(Bool.self, column: offset + 9) ? true : nil)
        if let body, !deleted || kind == .system {
            switch kind {
            case .text: message.text = body
            case .voice: message.voice = VoiceAttachment.parse(body)
            case .system: message.system = SystemEvent.parse(body)
            }
        }
        return message
    }

    // MARK: conversation state

    /// Locks these conversations' rows (`FOR UPDATE`, in id order, so that two batches never wait on each other
    /// in a cycle) until the caller's transaction ends, and returns their last seq and version (missing ids:
    /// no such conversation). Every change of a conversation's seq, members or name happens under this lock.
    ///
    /// `senders`: the accounts the batch stores messages for. In the same statement (no extra round trip) their
    /// `users` rows are locked `FOR KEY SHARE` (the lock the messages' foreign key takes at the insert anyway, so the
    /// insert finds it held) and those not deleted come back as `liveSenders`. Account deletion's first
    /// transaction holds the row `FOR UPDATE` while it marks it deleted (`AccountDeletionRepository.request`), which
    /// conflicts with this lock: a batch that locked first commits before the deletion can, so deletion's
    /// `messages` step sees its messages; one that comes later waits and then finds the account deleted (read
    /// committed re-reads the row it waited for). So no message of a deleted account is committed after its
    /// tombstones (docs/protocol.md, "Account deletion"). With no row (no such conversation) `liveSenders` is empty.
    public static func lockHeads(
        _ db: PostgresConnection, ids: [Int64], senders: [Int64] = []
    ) throws -> (heads: [Int64: ConversationHead], liveSenders: Set<Int64>) {
        guard !ids.isEmpty else { return ([:], []) }
        var heads: [Int64: ConversationHead] = [:]
        // One conversation (every commit at a low rate, most commits of a busy group) or one sender: scalar
        // parameters, see `insert`. The senders' check is an uncorrelated sub-select (an `InitPlan`), run once per
        // statement: one probe of `users`' primary key per sender, no extra statement or round trip.
        // The senders' column is named: unnamed, the one-sender sub-select's column would also be called `id`,
        // and `ORDER BY id` would be ambiguous (42702).
        let conversations = ids.count == 1 ? "c.id = $1" : "c.id = ANY($1::bigint[]) ORDER BY c.id"
        let accounts: String
        switch senders.count {
        case 0: accounts = ""
        case 1:
            accounts = """
                , (SELECT u.id::text FROM users u WHERE u.id = $2 AND u.deleted_at IS NULL FOR KEY SHARE) \
                AS live_senders
                """
        default:
            accounts = """
                , array_to_string(ARRAY(SELECT u.id FROM users u \
                WHERE u.id = ANY($2::bigint[]) AND u.deleted_at IS NULL FOR KEY SHARE), ',') AS live_senders
                """
        }
        var parameters: [PostgresData?] = [ids.count == 1 ? .int(ids[0]) : .text(bigintArray(ids))]
        if !senders.isEmpty { parameters.append(senders.count == 1 ? .int(senders[0]) : .text(bigintArray(senders))) }
        let rows = try db.execute(
            cached: """
                SELECT c.id, c.last_seq, c.version\(accounts) FROM conversations c WHERE \(conversations) \
                FOR UPDATE OF c
                """, parameters)
        var live = Set<Int64>()
        for r in rows {
            heads[try r.decode(Int64.self, column: 0)] = ConversationHead(
                lastSeq: try r.decode(column: 1), version: try r.decode(column: 2))
            if !senders.isEmpty, live.isEmpty, let list = try r.decode(String?.self, column: 3) {
                live = Set(list.split(separator: ",").compactMap { Int64($0) })
            }
        }
        return (heads, live)
    }

    /// A conversation's last seq and version without locking (nil: no such conversation).
    public static func head(_ db: PostgresConnection, id: Int64) throws -> ConversationHead? {
        guard
            let r = try db.execute(cached: "SELECT last_seq, version FROM conversations WHERE id = $1", [.int(id)])
                .first
        else {
            return nil
        }
        return ConversationHead(lastSeq: try r.decode(column: 0), version: try r.decode(column: 1))
    }

    /// Loads the writer's state of these conversations (missing ids are absent from the result). Outside a
    /// transaction that locks the rows, the two statements may straddle a commit: the version is then the older
    /// one (it is read first), so a later batch finds it stale and reloads; never a newer version with older
    /// members.
    public static func loadStates(_ db: PostgresConnection, ids: [Int64]) throws -> [Int64: ConversationState] {
        guard !ids.isEmpty else { return [:] }
        var states: [Int64: ConversationState] = [:]
        for r in try db.execute(
            cached: "SELECT id, kind, last_seq, name, version FROM conversations WHERE id = ANY($1::bigint[])",
            [.text(bigintArray(ids))])
        {
            let id = try r.decode(Int64.self, column: 0)
            states[id] = ConversationState(
                id: id, isGroup: try r.decode(String.self, column: 1) == "group", members: [:],
                lastSeq: try r.decode(column: 2),
                name: try r.decode(column: 3), version: try r.decode(column: 4))
        }
        for r in try db.execute(
            cached:
                """
                SELECT conversation_id, user_id, joined_seq, left_seq FROM members \
                WHERE conversation_id = ANY($1::bigint[])
                """,
            [.text(bigintArray(ids))])
        {
            let c = try r.decode(Int64.self, column: 0)
            let u = try r.decode(Int64.self, column: 1)
            states[c]?.members[u] = MemberRange(joinedSeq: try r.decode(column: 2), leftSeq: try r.decode(column: 3))
        }
        return states
    }

    // MARK: creating conversations

    /// The direct conversation of two users, created when missing. Returns its id.
    public static func directConversation(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws -> Int64 {
        let pair = FriendRepository.Pair(a, b)
        if let id = try db.execute(
            cached: "SELECT id FROM conversations WHERE direct_low = $1 AND direct_high = $2",
            [.int(pair.low), .int(pair.high)]
        ).decodeFirst(Int64.self) {
            return id
        }
        return try db.transaction { db in
            let inserted = try db.execute(
                cached: """
                    INSERT INTO conversations (kind, direct_low, direct_high, created_by) VALUES ('direct', $1, $2, $3)
                    ON CONFLICT (direct_low, direct_high) DO NOTHING RETURNING id
                    """, [.int(pair.low), .int(pair.high), .int(a)])
            if let id = try inserted.decodeFirst(Int64.self) {
                try db.execute(
                    cached:
                        "INSERT INTO members (conversation_id, user_id, joined_seq) VALUES ($1, $2, 0), ($1, $3, 0)",
                    [.int(id), .int(pair.low), .int(pair.high)])
                return id
            }
            // Created concurrently by the other user.
            guard
                let id = try db.execute(
                    cached: "SELECT id FROM conversations WHERE direct_low = $1 AND direct_high = $2",
                    [.int(pair.low), .int(pair.high)]
                ).decodeFirst(Int64.self)
            else { throw ServiceError.invariant("a direct conversation neither created nor found") }
            return id
        }
    }

    /// Creates a group with its members and its first (system) message, in the caller's transaction.
    public static func createGroup(
        _ db: PostgresConnection, creator: Int64, name: String?, members: [Int64]
    ) throws -> ChatMessage {
        guard
            let id = try db.execute(
                cached:
                    """
                    INSERT INTO conversations (kind, name, created_by, last_seq) VALUES ('group', $1, $2, 1) \
                    RETURNING id
                    """,
                [name.map { .text($0) }, .int(creator)]
            ).decodeFirst(Int64.self)
        else { throw ServiceError.invariant("a group conversation insert returned no id") }
        let everyone = [creator] + members.filter { $0 != creator }
        try db.execute(
            cached: """
                INSERT INTO members (conversation_id, user_id, joined_seq, read_seq)
                SELECT $1, u, 0, CASE WHEN u = $3 THEN 1 ELSE 0 END FROM unnest($2::bigint[]) AS u
                """, [.int(id), .text(bigintArray(everyone)), .int(creator)])
        let event = SystemEvent(event: "created", actorId: creator, userIds: everyone, name: name)
        let rows = try insert(
            db, [NewMessage(conversationId: id, seq: 1, senderId: nil, kind: .system, body: event.json, clientId: nil)])
        guard let message = rows.first else {
            throw ServiceError.invariant("the group's first system message was not stored")
        }
        return message
    }

    // MARK: writing messages

    /// Inserts messages in one statement; returns them as stored (in the input's order).
    ///
    /// One message (every commit at a low rate) goes in with scalar parameters. PostgreSQL plans a prepared
    /// statement for its parameters' values (a custom plan) until a generic plan costs no more; with arrays that
    /// `unnest` it estimates 100 rows for the generic plan and so plans every execution anew, which was a fifth of
    /// its CPU at 20 messages/s (issue 17). The same holds for the other single-row variants of the writer's
    /// statements (`lockHeads`, `existing`, `advance`, `markRead`); their results are the same as the array forms'.
    public static func insert(_ db: PostgresConnection, _ messages: [NewMessage]) throws -> [ChatMessage] {
        guard !messages.isEmpty else { return [] }
        if messages.count == 1 {
            let n = messages[0]
            let rows = try db.execute(
                cached: """
                    INSERT INTO messages AS m (conversation_id, seq, sender_id, kind, body, client_id, voice_id)
                    VALUES ($1, $2, $3, $4, $5, $6, $7)
                    RETURNING \(messageColumns)
                    """,
                [
                    .int(n.conversationId), .int(n.seq), n.senderId.map { .int($0) }, .text(n.kind.rawValue),
                    n.body.map { .text($0) },
                    n.clientId.map { .text($0) }, n.voiceId.map { .int($0) },
                ])
            guard let r = rows.first else { throw ServiceError.invariant("a message insert returned no row") }
            let m = try message(r)
            guard m.conversationId == n.conversationId, m.seq == n.seq else {
                throw ServiceError.invariant("a stored message came back with another conversation or seq")
            }
            return [m]
        }
        let rows = try db.execute(
            cached: """
                INSERT INTO messages AS m (conversation_id, seq, sender_id, kind, body, client_id, voice_id)
                SELECT * FROM unnest(
                    $1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[])
                RETURNING \(messageColumns)
                """,
            [
                .text(bigintArray(messages.map(\.conversationId))), .text(bigintArray(messages.map(\.seq))),
                .text(bigintArray(messages.map(\.senderId))), .text(textArray(messages.map(\.kind.rawValue))),
                .text(textArray(messages.map(\.body))), .text(textArray(messages.map(\.clientId))),
                .text(bigintArray(messages.map(\.voiceId))),
            ])
        struct Key: Hashable {
            var conversationId: Int64
            var seq: Int64
        }
        var byKey: [Key: ChatMessage] = [:]
        for r in rows {
            let m = try message(r)
            byKey[Key(conversationId: m.conversationId, seq: m.seq)] = m
        }
        return try messages.map { n in
            guard let m = byKey[Key(conversationId: n.conversationId, seq: n.seq)] else {
                throw ServiceError.invariant("a stored message is missing from the insert's rows")
            }
            return m
        }
    }

    /// Inserts one message, sets its conversation's head (`advance`) and moves its sender's read marker
    /// (`markRead`, when `mark` is set) in one statement: one executor start-up and one round trip instead of three
    /// (PostgreSQL's start-up of a statement and the round trips were most of its cost per commit at 20 messages/s).
    /// Returns the message as stored and the transaction's id.
    public static func insertAdvancingHead(
        _ db: PostgresConnection, _ n: NewMessage, head: ConversationHead, mark: (userId: Int64, seq: Int64)?
    ) throws -> (ChatMessage, Int64) {
        // Every data-modifying WITH runs once, referenced or not; `$12` switches the read marker's update off.
        let rows = try db.execute(
            cached: """
                WITH m (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9) AS (
                    INSERT INTO messages AS m (conversation_id, seq, sender_id, kind, body, client_id, voice_id)
                    VALUES ($1, $2, $3, $4, $5, $6, $7)
                    RETURNING \(messageColumns)
                ), head AS (
                    UPDATE conversations SET last_seq = $8, version = $9, last_activity_at = now() WHERE id = $1
                    RETURNING txid_current() AS tx
                ), marker AS (
                    UPDATE members SET read_seq = GREATEST(read_seq, $10)
                    WHERE conversation_id = $1 AND user_id = $11 AND $12
                )
                SELECT m.*, (SELECT tx FROM head) FROM m
                """,
            [
                .int(n.conversationId), .int(n.seq), n.senderId.map { .int($0) }, .text(n.kind.rawValue),
                n.body.map { .text($0) },
                n.clientId.map { .text($0) }, n.voiceId.map { .int($0) }, .int(head.lastSeq), .int(head.version),
                .int(mark?.seq ?? 0), .int(mark?.userId ?? 0), .bool(mark != nil),
            ])
        guard let r = rows.first, let transactionId = try r.decode(Int64?.self, column: 10) else {
            throw ServiceError.invariant("a message insert returned no row or transaction id")
        }
        let m = try message(r)
        guard m.conversationId == n.conversationId, m.seq == n.seq else {
            throw ServiceError.invariant("a stored message came back with another conversation or seq")
        }
        return (m, transactionId)
    }

    /// Earlier messages with these idempotency keys: (conversation, sender, client id) -> the stored message.
    public static func existing(
        _ db: PostgresConnection, keys: [(conversationId: Int64, senderId: Int64, clientId: String)]
    ) throws -> [ClientKey: ChatMessage] {
        guard !keys.isEmpty else { return [:] }
        // One lookup per key by the unique index, in one pipeline (one round trip; one key: a plain statement). A join
        // with the keys' `unnest` was planned as a hash join over a sequential scan of `messages` whenever the table's
        // statistics were older than its growth (a new database until autovacuum's first analyze: the scans read
        // 28 million rows in a minute of 32 messages in flight).
        let sql =
            """
            SELECT \(messageColumns) FROM messages m \
            WHERE m.conversation_id = $1 AND m.sender_id = $2 AND m.client_id = $3
            """
        let rows = try db.pipeline(
            sql: sql, rows: keys.map { [.int($0.conversationId), .int($0.senderId), .text($0.clientId)] }
        )
        .flatMap { $0 }
        var result: [ClientKey: ChatMessage] = [:]
        for r in rows {
            let m = try message(r)
            if let s = m.senderId, let c = m.clientId {
                result[ClientKey(conversationId: m.conversationId, senderId: s, clientId: c)] = m
            }
        }
        return result
    }

    /// A sender's idempotency key.
    public struct ClientKey: Hashable, Sendable {
        public var conversationId: Int64
        public var senderId: Int64
        public var clientId: String
        public init(conversationId: Int64, senderId: Int64, clientId: String) {
            self.conversationId = conversationId
            self.senderId = senderId
            self.clientId = clientId
        }
    }

    /// Sets conversations' last seq, version and activity time (rows locked by `lockHeads` in the same
    /// transaction). Returns the id of the transaction it ran in (`txid_current()`, so that a COMMIT whose
    /// answer was lost can be resolved with `commitStatus`), or nil when there was nothing to set.
    @discardableResult
    public static func advance(_ db: PostgresConnection, heads: [Int64: ConversationHead]) throws -> Int64? {
        guard !heads.isEmpty else { return nil }
        // By the primary key, one statement per conversation (several: in one pipeline, one round trip), as in
        // `markRead`.
        let sql =
            """
            UPDATE conversations SET last_seq = $2, version = $3, last_activity_at = now() WHERE id = $1 \
            RETURNING txid_current()
            """
        let results = try db.pipeline(
            sql: sql,
            rows: heads.keys.sorted().map { id in [.int(id), .int(heads[id]!.lastSeq), .int(heads[id]!.version)] })
        for rows in results { if let transactionId = try rows.decodeFirst(Int64.self) { return transactionId } }
        return nil
    }

    /// What became of a transaction (`txid_status`): `committed`, `aborted`, `in progress`, or nil when it is
    /// too old to know.
    public static func commitStatus(_ db: PostgresConnection, transactionId: Int64) throws -> String? {
        try db.execute(cached: "SELECT txid_status($1)", [.int(transactionId)]).decodeFirst(String?.self) ?? nil
    }

    /// Moves read markers forward (never back).
    public static func markRead(_ db: PostgresConnection, marks: [(conversationId: Int64, userId: Int64, seq: Int64)])
        throws
    {
        guard !marks.isEmpty else { return }
        // One mark per member and conversation, its highest seq: a commit of 13 messages from 4 senders moves 4
        // markers with 4 statements, not 13 (PostgreSQL's start-up of a statement was its largest cost at 32 in
        // flight, and each update is a new row version).
        var first: [MarkKey: Int] = [:]
        var merged: [(conversationId: Int64, userId: Int64, seq: Int64)] = []
        merged.reserveCapacity(marks.count)
        for mark in marks {
            let key = MarkKey(conversationId: mark.conversationId, userId: mark.userId)
            if let i = first[key] {
                merged[i].seq = max(merged[i].seq, mark.seq)
            } else {
                first[key] = merged.count
                merged.append(mark)
            }
        }
        // By the primary key, one statement per mark (several: in one pipeline, one round trip). A join with the
        // marks' `unnest` was planned as a hash join over a sequential scan of `members` (see `existing`).
        let sql = "UPDATE members SET read_seq = GREATEST(read_seq, $3) WHERE conversation_id = $1 AND user_id = $2"
        _ = try db.pipeline(sql: sql, rows: merged.map { [.int($0.conversationId), .int($0.userId), .int($0.seq)] })
    }

    /// A member's read marker in a conversation.
    private struct MarkKey: Hashable {
        let conversationId: Int64
        let userId: Int64
    }

    /// Adds (or re-adds) a member whose visible range starts after `joinedSeq`.
    public static func addMember(_ db: PostgresConnection, conversationId: Int64, userId: Int64, joinedSeq: Int64)
        throws
    {
        try db.execute(
            cached: """
                INSERT INTO members (conversation_id, user_id, joined_seq, read_seq) VALUES ($1, $2, $3, $3)
                ON CONFLICT (conversation_id, user_id) DO UPDATE SET joined_seq = $3, left_seq = NULL, read_seq = $3
                """, [.int(conversationId), .int(userId), .int(joinedSeq)])
    }

    /// Ends a membership at `leftSeq` (the member's leave message).
    public static func removeMember(_ db: PostgresConnection, conversationId: Int64, userId: Int64, leftSeq: Int64)
        throws
    {
        try db.execute(
            cached:
                """
                UPDATE members SET left_seq = $3, read_seq = GREATEST(read_seq, $3) \
                WHERE conversation_id = $1 AND user_id = $2
                """,
            [.int(conversationId), .int(userId), .int(leftSeq)])
    }

    public static func rename(_ db: PostgresConnection, conversationId: Int64, name: String) throws {
        try db.execute(cached: "UPDATE conversations SET name = $2 WHERE id = $1", [.int(conversationId), .text(name)])
    }

    /// Marks a message deleted for everyone and clears its content.
    public static func markDeleted(_ db: PostgresConnection, messageId: Int64) throws {
        try db.execute(cached: "UPDATE messages SET deleted_at = now(), body = NULL WHERE id = $1", [.int(messageId)])
    }

    /// A message's conversation, sender, kind and whether it is deleted.
    public static func messageInfo(_ db: PostgresConnection, messageId: Int64) throws -> (
        conversationId: Int64, seq: Int64, senderId: Int64?, kind: String, deleted: Bool
    )? {
        guard
            let r = try db.execute(
                cached:
                    "SELECT conversation_id, seq, sender_id, kind, deleted_at IS NOT NULL FROM messages WHERE id = $1",
                [.int(messageId)]
            ).first
        else { return nil }
        return (
            try r.decode(column: 0), try r.decode(column: 1), try r.decode(column: 2), try r.decode(column: 3),
            try r.decode(column: 4)
        )
    }

    // MARK: reading

    /// A member's range in a conversation, or nil when it never was a member.
    public static func membership(_ db: PostgresConnection, conversationId: Int64, userId: Int64) throws -> MemberRange?
    {
        guard
            let r = try db.execute(
                cached: "SELECT joined_seq, left_seq FROM members WHERE conversation_id = $1 AND user_id = $2",
                [.int(conversationId), .int(userId)]
            ).first
        else { return nil }
        return MemberRange(joinedSeq: try r.decode(column: 0), leftSeq: try r.decode(column: 1))
    }

    /// Messages of a conversation visible to `userId` with `after < seq <= upTo` (ascending), or with
    /// `seq < before` (descending, newest first); hidden ones excluded. At most `limit` (at least 1).
    /// Any `Int64` is accepted for the bounds (they come from clients): no arithmetic can overflow.
    public static func messages(
        _ db: PostgresConnection, conversationId: Int64, userId: Int64, range: MemberRange, after: Int64? = nil,
        upTo: Int64? = nil, before: Int64? = nil, limit: Int
    ) throws -> [ChatMessage] {
        let low = max(range.joinedSeq, after ?? range.joinedSeq)
        var high = range.leftSeq ?? Int64.max
        if let upTo { high = min(high, upTo) }
        if let before {
            // `before - 1` cannot overflow once `before > low` (so `before > Int64.min`).
            guard before > low else { return [] }
            high = min(high, before - 1)
        }
        guard high > low, limit > 0 else { return [] }
        let ascending = before == nil
        let sql = """
            SELECT \(messageColumns) FROM messages m
            WHERE m.conversation_id = $1 AND m.seq > $2 AND m.seq <= $3
              AND NOT EXISTS (SELECT 1 FROM hidden_messages h WHERE h.user_id = $4 AND h.message_id = m.id)
            ORDER BY m.seq \(ascending ? "ASC" : "DESC") LIMIT $5
            """
        return try db.execute(
            cached: sql, [.int(conversationId), .int(low), .int(high), .int(userId), .int(Int64(limit))]
        ).map {
            try message($0)
        }
    }

    /// Every conversation `userId` belongs to or has left: id, range and last seq.
    public static func memberships(_ db: PostgresConnection, userId: Int64) throws -> [(
        id: Int64, range: MemberRange, lastSeq: Int64
    )] {
        try db.execute(
            cached: """
                SELECT mb.conversation_id, mb.joined_seq, mb.left_seq, c.last_seq FROM members mb
                JOIN conversations c ON c.id = mb.conversation_id WHERE mb.user_id = $1 ORDER BY mb.conversation_id
                """, [.int(userId)]
        ).map { r in
            (
                try r.decode(column: 0),
                MemberRange(joinedSeq: try r.decode(column: 1), leftSeq: try r.decode(column: 2)),
                try r.decode(column: 3)
            )
        }
    }

    /// Conversations of `userId`, most recent activity first (or just `only`).
    public static func summaries(_ db: PostgresConnection, userId: Int64, only: Int64? = nil, limit: Int) throws
        -> [ConversationSummary]
    {
        let rows = try db.execute(
            cached: """
                SELECT c.id, c.kind, c.name, c.last_seq, \(WireTimestamp.sql("c.last_activity_at")), mb.read_seq,
                  mb.joined_seq, mb.left_seq,
                  (SELECT count(*) FROM messages m
                    WHERE m.conversation_id = c.id AND m.seq > GREATEST(mb.read_seq, mb.joined_seq)
                      AND (mb.left_seq IS NULL OR m.seq <= mb.left_seq)
                      AND m.kind <> 'system' AND m.sender_id IS DISTINCT FROM $1 AND m.deleted_at IS NULL
                      AND NOT EXISTS (SELECT 1 FROM hidden_messages h WHERE h.user_id = $1 AND h.message_id = m.id)),
                  last.*
                FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                LEFT JOIN LATERAL (
                  SELECT \(messageColumns) FROM messages m
                  WHERE m.conversation_id = c.id AND m.seq > mb.joined_seq
                    AND (mb.left_seq IS NULL OR m.seq <= mb.left_seq)
                    AND NOT EXISTS (SELECT 1 FROM hidden_messages h WHERE h.user_id = $1 AND h.message_id = m.id)
                  ORDER BY m.seq DESC LIMIT 1) last ON true
                WHERE mb.user_id = $1 AND ($2::bigint IS NULL OR c.id = $2)
                ORDER BY c.last_activity_at DESC, c.id DESC LIMIT $3
                """, [.int(userId), only.map { .int($0) }, .int(Int64(limit))])
        guard !rows.isEmpty else { return [] }
        let ids = try rows.decode(Int64.self, column: 0)
        var members: [Int64: [ConversationMember]] = [:]
        for r in try db.execute(
            cached: """
                SELECT mb.conversation_id, u.id, u.display_name, mb.read_seq
                FROM members mb JOIN users u ON u.id = mb.user_id
                WHERE mb.conversation_id = ANY($1::bigint[]) AND mb.left_seq IS NULL ORDER BY mb.conversation_id, u.id
                """, [.text(bigintArray(ids))])
        {
            members[try r.decode(Int64.self, column: 0), default: []].append(
                ConversationMember(
                    userId: try r.decode(column: 1), displayName: try r.decode(column: 2),
                    readSeq: try r.decode(column: 3)))
        }
        return try rows.map { r in
            let id = try r.decode(Int64.self, column: 0)
            let isGroup = try r.decode(String.self, column: 1) == "group"
            let list = members[id] ?? []
            let others = list.filter { $0.userId != userId }.map(\.displayName)
            let groupName = try isGroup ? r.decode(String?.self, column: 2) : nil
            let name = groupName ?? (others.isEmpty ? "" : others.joined(separator: ", "))
            var last: ChatMessage? = try r.isNull(9) ? nil : message(r, offset: 9)
            if let text = last?.text, text.count > 100 { last?.text = String(text.prefix(100)) }
            return ConversationSummary(
                conversationId: id, kind: isGroup ? "group" : "direct", name: name, members: list,
                lastSeq: try r.decode(column: 3), lastActivityAt: try r.decode(column: 4),
                readSeq: try r.decode(column: 5),
                unreadCount: try r.decode(column: 8), lastMessage: last,
                active: try r.decode(Int64?.self, column: 7) == nil)
        }
    }
}
