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

/// The SQL of administrators, suspensions, reports and the moderation audit log (`docs/moderation.md`). Every
/// function takes the connection it runs on; none opens a transaction of its own.
public enum ModerationRepository {
    /// A user's standing: whether it is an administrator and whether it is suspended (nil: no such user).
    public static func standing(_ db: PostgresConnection, of userId: Int64) throws -> (admin: Bool, suspended: Bool)? {
        guard
            let r = try db.execute(
                cached: "SELECT role = 'admin', suspended_at IS NOT NULL FROM users WHERE id = $1", [.int(userId)]
            ).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// Whether the user is an administrator (and not suspended): `AdministratorRole.holds`, kept under this name
    /// for the callers written before the role check moved there.
    public static func isAdministrator(_ db: PostgresConnection, _ userId: Int64) throws -> Bool {
        try AdministratorRole.holds(db, userId)
    }

    /// Sets the role of the account with this phone number; the user's id and whether it changed, nil when no
    /// account has the number.
    public static func setRole(_ db: PostgresConnection, phone: String, admin: Bool) throws -> (
        userId: Int64, changed: Bool
    )? {
        guard
            let r = try db.execute(cached: "SELECT id, role FROM users WHERE phone = $1 FOR UPDATE", [.text(phone)])
                .first
        else { return nil }
        let id: Int64 = try r.decode(column: 0)
        let role: String = try r.decode(column: 1)
        let wanted = admin ? "admin" : "user"
        guard role != wanted else { return (id, false) }
        try db.execute(cached: "UPDATE users SET role = $2 WHERE id = $1", [.int(id), .text(wanted)])
        return (id, true)
    }

    /// The administrators: id, display name, phone number, whether suspended.
    public static func administrators(_ db: PostgresConnection) throws -> [(
        userId: Int64, displayName: String, phone: String?, suspended: Bool
    )] {
        try db.execute(
            cached:
                "SELECT id, display_name, phone, suspended_at IS NOT NULL FROM users WHERE role = 'admin' ORDER BY id"
        ).map {
            (try $0.decode(column: 0), try $0.decode(column: 1), try $0.decode(column: 2), try $0.decode(column: 3))
        }
    }

    /// Suspends or reinstates; whether it changed, nil when there is no such user.
    public static func setSuspended(_ db: PostgresConnection, _ userId: Int64, _ suspended: Bool) throws -> Bool? {
        guard
            let r = try db.execute(
                cached: "SELECT suspended_at IS NOT NULL FROM users WHERE id = $1 FOR UPDATE", [.int(userId)]
            ).first
        else { return nil }
        let now: Bool = try r.decode(column: 0)
        guard now != suspended else { return false }
        try db.execute(
            cached: "UPDATE users SET suspended_at = CASE WHEN $2 THEN now() ELSE NULL END WHERE id = $1",
            [.int(userId), .bool(suspended)])
        return true
    }

    /// Marks a message removed by moderation (deleted, text gone).
    public static func markRemoved(_ db: PostgresConnection, messageId: Int64) throws {
        try db.execute(
            cached: "UPDATE messages SET deleted_at = now(), removed_at = now(), body = NULL WHERE id = $1",
            [.int(messageId)])
    }

    /// Appends to the audit log. `actorId` nil with `actor` `cli` for the operator's command line.
    public static func audit(
        _ db: PostgresConnection, actorId: Int64?, actor: String, action: String, targetKind: String, targetId: Int64?,
        reason: String?
    ) throws {
        try db.execute(
            cached: """
                INSERT INTO moderation_audit (actor_id, actor, action, target_kind, target_id, reason)
                VALUES ($1, $2, $3, $4, $5, $6)
                """,
            [
                actorId.map { .int($0) }, .text(actor), .text(action), .text(targetKind), targetId.map { .int($0) },
                reason.map { .text($0) },
            ])
    }

    /// A page of the audit log, newest first, before the entry id `before`.
    public static func auditLog(_ db: PostgresConnection, before: Int64?, limit: Int) throws -> [AuditEntry] {
        try db.execute(
            cached: """
                SELECT id, actor_id, actor, action, target_kind, target_id, reason, \(WireTimestamp.sql("created_at"))
                FROM moderation_audit WHERE id < $1 ORDER BY id DESC LIMIT $2
                """, [.int(before ?? Int64.max), .int(limit)]
        ).map {
            AuditEntry(
                entryId: try $0.decode(column: 0), actorId: try $0.decode(column: 1), actor: try $0.decode(column: 2),
                action: try $0.decode(column: 3), targetKind: try $0.decode(column: 4),
                targetId: try $0.decode(column: 5),
                reason: try $0.decode(column: 6), createdAt: try $0.decode(column: 7))
        }
    }

    /// Files a report, checking that the reporter may see its target: a message it sees (as `reactions.set`), a
    /// user it is a friend of or shares a conversation with. Anything else is `not_found`, the same answer
    /// whether or not the target exists. An open report of the same reporter and target is answered again.
    /// - Throws: `ModerationError` `noSuchMessage`, `messageDeleted`, `noSuchUser`, `unknownTargetKind`.
    public static func report(
        _ db: PostgresConnection, reporter: Int64, targetKind: String, targetId: Int64, reason: String, text: String?
    ) throws -> Int64 {
        var targetUser: Int64?
        var conversationId: Int64?
        var content: String?
        switch targetKind {
        case "message":
            guard let info = try MessageStore.messageInfo(db, messageId: targetId), info.kind != "system",
                let range = try MessageStore.membership(db, conversationId: info.conversationId, userId: reporter),
                range.sees(info.seq)
            else { throw ModerationError.noSuchMessage }
            guard !info.deleted else { throw ModerationError.messageDeleted }
            targetUser = info.senderId
            conversationId = info.conversationId
            content =
                try db.execute(
                    cached: """
                        SELECT CASE WHEN kind = 'voice' THEN '[voice message]' ELSE body END
                        FROM messages WHERE id = $1
                        """,
                    [.int(targetId)]
                ).decodeFirst(String?.self) ?? nil
        case "user":
            guard targetId != reporter,
                try FriendRepository.areFriends(db, reporter, targetId)
                    || !db.execute(
                        cached: """
                            SELECT 1 FROM members a JOIN members b ON b.conversation_id = a.conversation_id
                            WHERE a.user_id = $1 AND b.user_id = $2 LIMIT 1
                            """, [.int(reporter), .int(targetId)]
                    ).isEmpty
            else { throw ModerationError.noSuchUser }
            targetUser = targetId
        default:
            throw ModerationError.unknownTargetKind
        }
        if let existing = try db.execute(
            cached: """
                SELECT id FROM reports
                WHERE reporter_id = $1 AND target_kind = $2 AND target_id = $3 AND status = 'open' LIMIT 1
                """,
            [.int(reporter), .text(targetKind), .int(targetId)]
        ).decodeFirst(Int64.self) {
            return existing
        }
        return try db.execute(
            cached: """
                INSERT INTO reports
                    (reporter_id, target_kind, target_id, target_user_id, conversation_id, content, reason, details)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
                """,
            [
                .int(reporter), .text(targetKind), .int(targetId), targetUser.map { .int($0) },
                conversationId.map { .int($0) },
                content.map { .text($0) }, .text(reason), text.map { .text($0) },
            ]
        ).decodeFirst(Int64.self) ?? 0
    }

    static let reportColumns = """
        r.id, r.status, r.target_kind, r.target_id, r.reason, r.details, \(WireTimestamp.sql("r.created_at")),
        rp.id, rp.display_name, tu.id, tu.display_name, tu.suspended_at IS NOT NULL, r.conversation_id, m.seq,
        r.content,
        CASE WHEN r.target_kind <> 'message' THEN NULL WHEN m.id IS NULL OR m.removed_at IS NOT NULL THEN 'removed'
             WHEN m.deleted_at IS NOT NULL THEN 'deleted' ELSE 'visible' END,
        \(WireTimestamp.sql("r.closed_at")), r.closed_by, r.note
        FROM reports r LEFT JOIN users rp ON rp.id = r.reporter_id LEFT JOIN users tu ON tu.id = r.target_user_id
        LEFT JOIN messages m ON r.target_kind = 'message' AND m.id = r.target_id
        """

    static func decodeReport(_ row: PostgresRow) throws -> ModerationReport {
        let reporterId: Int64? = try row.decode(column: 7)
        let targetUserId: Int64? = try row.decode(column: 9)
        return ModerationReport(
            reportId: try row.decode(column: 0), status: try row.decode(column: 1),
            targetKind: try row.decode(column: 2),
            targetId: try row.decode(column: 3), reason: try row.decode(column: 4), text: try row.decode(column: 5),
            createdAt: try row.decode(column: 6),
            reporter: try reporterId.map { ReportedUser(userId: $0, displayName: try row.decode(column: 8)) },
            targetUser: try targetUserId.map {
                ReportedUser(userId: $0, displayName: try row.decode(column: 10), suspended: try row.decode(column: 11))
            },
            conversationId: try row.decode(column: 12), seq: try row.decode(column: 13),
            content: try row.decode(column: 14),
            messageState: try row.decode(column: 15), closedAt: try row.decode(column: 16),
            closedBy: try row.decode(column: 17),
            note: try row.decode(column: 18))
    }

    /// A page of reports, newest first: open ones, or closed ones (resolved and dismissed).
    public static func reports(_ db: PostgresConnection, open: Bool, before: Int64?, limit: Int) throws
        -> [ModerationReport]
    {
        try db.execute(
            cached: "SELECT \(reportColumns) WHERE (r.status = 'open') = $1 AND r.id < $2 ORDER BY r.id DESC LIMIT $3",
            [.bool(open), .int(before ?? Int64.max), .int(limit)]
        ).map(decodeReport)
    }

    /// One report, or nil.
    public static func report(_ db: PostgresConnection, id: Int64) throws -> ModerationReport? {
        try db.execute(cached: "SELECT \(reportColumns) WHERE r.id = $1", [.int(id)]).first.map(decodeReport)
    }

    /// Closes a report (`resolved` or `dismissed`); false when there is no such report. Closing a closed report
    /// again changes nothing.
    public static func close(
        _ db: PostgresConnection, reportId: Int64, by adminId: Int64, status: String, note: String?
    ) throws -> Bool {
        guard try db.execute(cached: "SELECT 1 FROM reports WHERE id = $1 FOR UPDATE", [.int(reportId)]).first != nil
        else { return false }
        try db.execute(
            cached: """
                UPDATE reports SET status = $2, closed_at = now(), closed_by = $3, note = COALESCE($4, note)
                WHERE id = $1 AND status = 'open'
                """, [.int(reportId), .text(status), .int(adminId), note.map { .text($0) }])
        return true
    }
}
