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

/// Reports and moderation (`docs/moderation.md`): `report.create` for every user, `admin.*` for administrators.
///
/// Every `admin.*` op first checks the caller's role in the database (`ProtocolServices.isAdministrator`, the
/// one check later features reuse); anyone else gets `forbidden` and no data. A removal goes through the
/// conversation's writer like `messages.delete` (the tombstone `message_removed` reaches every member's
/// connections on every node, and history); a suspension is announced like a session revocation (each node
/// closes its own connections of the account with 4004). Every action is written to the audit log.
struct ModerationFeature: Feature {
    static let migrations: [Migration] = [.v0008Moderation]

    init(context: ProtocolServices) {}

    static let textRule = TextRule(field: "text", maxCharacters: 1000, maxBytes: 4000, controls: .lineBreaksAndTabs)
    static let reasonRule = TextRule(field: "reason", maxCharacters: 500, maxBytes: 2000)
    static let noteRule = TextRule(field: "note", maxCharacters: 500, maxBytes: 2000)
    /// Reports and audit entries per page at most (and by default).
    static let maxPage = 100
    static let defaultPage = 50

    func register(in registry: inout FeatureRegistry) {
        registry.operations.register(Ops.ReportCreate.self) { context, p in
            guard ModerationReason.all.contains(p.reason) else {
                context.fail(.badRequest, "reason must be one of \(ModerationReason.all.joined(separator: ", "))")
                return
            }
            if p.targetKind == "post" {
                context.fail(.badRequest, "posts cannot be reported yet")
                return
            }
            if let text = p.text, let problem = StoredText.problem(text, Self.textRule) {
                context.fail(.badRequest, problem)
                return
            }
            if let retryAfter = context.services.reportLimiter.attempt(context.me, now: EventLoop.now(), sharedBy: context.limitShare)
                .retryAfterMilliseconds
            {
                context.fail(.rateLimited, "too many reports", extra: ["retry_after_ms": retryAfter])
                return
            }
            let pool = context.services.accounts.pool
            let me = context.me
            context.run { () async throws(ServiceError) -> Ops.ReportCreate.Result in
                do {
                    let id = try await pool.transaction { db in
                        try ModerationRepository.report(db, reporter: me, targetKind: p.targetKind, targetId: p.targetId, reason: p.reason, text: p.text)
                    }
                    return .init(reportId: id)
                } catch { throw ServiceError.from(error) }
            }
        }
        registry.operations.register(Ops.AdminReports.self) { s, p async throws(ServiceError) -> Ops.AdminReports.Result in
            try await Self.requireAdministrator(s)
            let status = p.status ?? "open"
            guard status == "open" || status == "closed" else { throw ServiceError(.badRequest, "status must be open or closed") }
            let limit = try Self.pageLimit(p.limit, before: p.before)
            let reports = try await Self.database(s) { db in
                try ModerationRepository.reports(db, open: status == "open", before: p.before, limit: limit + 1)
            }
            return .init(reports: Array(reports.prefix(limit)), nextBefore: reports.count > limit ? reports[limit - 1].reportId : nil)
        }
        registry.operations.register(Ops.AdminAudit.self) { s, p async throws(ServiceError) -> Ops.AdminAudit.Result in
            try await Self.requireAdministrator(s)
            let limit = try Self.pageLimit(p.limit, before: p.before)
            let entries = try await Self.database(s) { db in try ModerationRepository.auditLog(db, before: p.before, limit: limit + 1) }
            return .init(entries: Array(entries.prefix(limit)), nextBefore: entries.count > limit ? entries[limit - 1].entryId : nil)
        }
        registry.operations.register(Ops.AdminResolve.self) { s, p async throws(ServiceError) -> Ops.AdminResolve.Result in
            try await Self.requireAdministrator(s)
            guard p.status == "resolved" || p.status == "dismissed" else { throw ServiceError(.badRequest, "status must be resolved or dismissed") }
            try Self.check(p.note, Self.noteRule)
            let me = s.userId
            let report = try await Self.database(s, transaction: true) { db -> ModerationReport? in
                guard try ModerationRepository.close(db, reportId: p.reportId, by: me, status: p.status, note: p.note) else { return nil }
                try ModerationRepository.audit(
                    db, actorId: me, actor: "user:\(me)", action: p.status == "resolved" ? "resolve" : "dismiss", targetKind: "report",
                    targetId: p.reportId, reason: p.note)
                return try ModerationRepository.report(db, id: p.reportId)
            }
            guard let report else { throw ServiceError(.notFound, "no such report") }
            return .init(report: report)
        }
        registry.operations.register(Ops.AdminSuspend.self) { s, p async throws(ServiceError) -> ModerationUserResult in
            try await Self.setSuspended(s, p, true)
        }
        registry.operations.register(Ops.AdminReinstate.self) { s, p async throws(ServiceError) -> ModerationUserResult in
            try await Self.setSuspended(s, p, false)
        }
        registry.operations.register(Ops.AdminRemove.self) { s, p async throws(ServiceError) -> MessageResult in
            try await Self.requireAdministrator(s)
            try Self.check(p.reason, Self.reasonRule)
            let me = s.userId
            guard let info = try await Self.database(s, { db in try MessageStore.messageInfo(db, messageId: p.messageId) }) else {
                throw ServiceError.noSuchMessage
            }
            let hub = s.services.messages
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ChatMessage, ServiceError>, Never>) in
                hub.submit(
                    WriteRequest(
                        conversationId: info.conversationId, actor: me, action: .remove(messageId: p.messageId), origin: nil, reply: nil,
                        completion: { continuation.resume(returning: $0) }))
            }
            let tombstone = try result.get()
            try await Self.database(s, transaction: true) { db in
                try ModerationRepository.audit(
                    db, actorId: me, actor: "user:\(me)", action: "remove", targetKind: "message", targetId: p.messageId, reason: p.reason)
                if let reportId = p.reportId {
                    _ = try ModerationRepository.close(db, reportId: reportId, by: me, status: "resolved", note: p.reason)
                }
            }
            return MessageResult(message: tombstone)
        }
    }

    /// Suspends or reinstates an account; a suspension closes its connections on every node (4004).
    static func setSuspended<Op>(_ s: RequestContext<Op>.Snapshot, _ p: ModerationUserParameters, _ suspend: Bool) async throws(ServiceError)
        -> ModerationUserResult
    {
        try await requireAdministrator(s)
        try check(p.reason, reasonRule)
        let me = s.userId
        if suspend && p.userId == me { throw ServiceError(.badRequest, "an administrator cannot suspend itself") }
        let changed = try await database(s, transaction: true) { db -> Bool? in
            guard let changed = try ModerationRepository.setSuspended(db, p.userId, suspend) else { return nil }
            if changed {
                try ModerationRepository.audit(
                    db, actorId: me, actor: "user:\(me)", action: suspend ? "suspend" : "reinstate", targetKind: "user", targetId: p.userId,
                    reason: p.reason)
            }
            if suspend, let reportId = p.reportId {
                _ = try ModerationRepository.close(db, reportId: reportId, by: me, status: "resolved", note: p.reason)
            }
            return changed
        }
        guard changed != nil else { throw ServiceError(.notFound, "no such user") }
        // Also when it was suspended already: a connection that authenticated in between is closed too.
        if suspend { s.services.deliveries.suspend(userId: p.userId) }
        return ModerationUserResult(userId: p.userId, suspended: suspend)
    }

    /// `forbidden` unless the caller is an administrator.
    static func requireAdministrator<Op>(_ s: RequestContext<Op>.Snapshot) async throws(ServiceError) {
        guard try await s.services.isAdministrator(s.userId) else { throw ServiceError(.forbidden, "administrators only") }
    }

    static func check(_ text: String?, _ rule: TextRule) throws(ServiceError) {
        if let text, let problem = StoredText.problem(text, rule) { throw ServiceError(.badRequest, problem) }
    }

    static func pageLimit(_ limit: Int?, before: Int64?) throws(ServiceError) -> Int {
        let limit = limit ?? defaultPage
        guard (1...maxPage).contains(limit) else { throw ServiceError(.badRequest, "limit must be 1 to \(maxPage)") }
        if let before, before < 1 { throw ServiceError(.badRequest, "before must be an id (1 or more)") }
        return limit
    }

    static func database<Op, T: Sendable>(
        _ s: RequestContext<Op>.Snapshot, transaction: Bool = false, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(ServiceError) -> T {
        let pool = s.services.accounts.pool
        do {
            return transaction ? try await pool.transaction(body) : try await pool.withConnection(body)
        } catch { throw ServiceError.from(error) }
    }
}

extension ProtocolServices {
    /// Whether `userId` is an administrator (and not suspended): the one authorization check of moderation, for
    /// every feature that needs the role (communities, events). Reads the database (never call it on a loop).
    func isAdministrator(_ userId: Int64) async throws(ServiceError) -> Bool {
        let pool = accounts.pool
        do {
            return try await pool.withConnection { db in try ModerationRepository.isAdministrator(db, userId) }
        } catch { throw ServiceError.from(error) }
    }
}
