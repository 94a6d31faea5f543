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

/// Moderation's use cases (docs/moderation.md): reports for every user, the administrators' review, removals,
/// suspensions and the audit log. Each is one read or one transaction on the database seam, the rules checked
/// first; nothing is pushed from here.
///
/// Every `admin.*` use case first checks the caller's role (`isAdministrator`, read at every call): anyone else
/// gets `administratorsOnly` and no data. What the engines do stays with the handlers: a removal goes through the
/// conversation's writer between `removal(_:messageId:reason:)` (the checks) and `recordRemoval` (the audit row and
/// the report's resolution); a suspension's connections are closed on every node after `setSuspended` commits.
final class ModerationService: Sendable {
    /// `report.create`'s `text`.
    static let textRule = TextRule(field: "text", maxCharacters: 1000, maxBytes: 4000, controls: .lineBreaksAndTabs)
    /// The `reason` of an administrator's action.
    static let reasonRule = TextRule(field: "reason", maxCharacters: 500, maxBytes: 2000)
    /// `admin.resolve`'s `note`.
    static let noteRule = TextRule(field: "note", maxCharacters: 500, maxBytes: 2000)
    /// Reports and audit entries per page at most.
    static let maxPage = 100
    /// Reports and audit entries per page by default.
    static let defaultPage = 50

    let db: any Database
    /// Reports per user per hour, also the burst (`--report-rate`).
    let reportsPerHour: Double
    /// `report.create` per user.
    let reports: SharedRateLimiter<Int64>
    /// Monotonic nanoseconds for the rate limiter (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(db: any Database, reportsPerHour: Double, clock: any EngineClock = SystemClock()) {
        self.db = db
        self.reportsPerHour = reportsPerHour
        self.reports = SharedRateLimiter(
            capacity: max(1, reportsPerHour), refillPerSecond: max(0.0001, reportsPerHour / 3600))
        self.clock = clock
    }

    /// Whether `userId` is an administrator (and not suspended): the role check other features reuse, read from the
    /// database at every call (a revocation applies at the next request, on every node).
    func isAdministrator(_ userId: Int64) async throws(ModerationError) -> Bool {
        try await db.isAdministrator(userId, as: ModerationError.self)
    }

    /// `report.create`: a report of a message the caller sees or of a user it shares something with (anything else
    /// `noSuchMessage` / `noSuchUser`, whether it exists or not); the caller's open report of the same target is
    /// answered again. Counts against the caller's hourly allowance.
    func report(
        _ caller: Caller, targetKind: String, targetId: Int64, reason: String, text: String?
    ) async throws(ModerationError) -> Ops.ReportCreate.Result {
        guard ModerationReason.all.contains(reason) else { throw .unknownReason }
        if targetKind == "post" { throw .postsNotReportable }
        try Self.check(text, Self.textRule)
        let attempt = reports.attempt(caller.userId, now: clock.now(), sharedBy: caller.limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds { throw .rateLimited(retryAfterMilliseconds: retryAfter) }
        let me = caller.userId
        let id = try await db.write(as: ModerationError.self) { db in
            try ModerationRepository.report(
                db, reporter: me, targetKind: targetKind, targetId: targetId, reason: reason, text: text)
        }
        return .init(reportId: id)
    }

    /// `admin.reports`: open (default) or closed reports, newest first, in pages.
    func reports(
        _ caller: Caller, status: String?, before: Int64?, limit: Int?
    ) async throws(ModerationError) -> Ops.AdminReports.Result {
        try await requireAdministrator(caller)
        let status = status ?? "open"
        guard status == "open" || status == "closed" else { throw .unknownReportStatus }
        let limit = try Self.pageLimit(limit, before: before)
        let reports = try await db.read(as: ModerationError.self) { db in
            try ModerationRepository.reports(db, open: status == "open", before: before, limit: limit + 1)
        }
        return .init(
            reports: Array(reports.prefix(limit)), nextBefore: reports.count > limit ? reports[limit - 1].reportId : nil
        )
    }

    /// `admin.audit`: the audit log, newest first, in pages.
    func audit(_ caller: Caller, before: Int64?, limit: Int?) async throws(ModerationError) -> Ops.AdminAudit.Result {
        try await requireAdministrator(caller)
        let limit = try Self.pageLimit(limit, before: before)
        let entries = try await db.read(as: ModerationError.self) { db in
            try ModerationRepository.auditLog(db, before: before, limit: limit + 1)
        }
        return .init(
            entries: Array(entries.prefix(limit)), nextBefore: entries.count > limit ? entries[limit - 1].entryId : nil)
    }

    /// `admin.resolve`: closes a report as `resolved` or `dismissed` with an optional note, and audits it (one
    /// transaction). Closing a closed report again changes nothing but is audited.
    func resolve(
        _ caller: Caller, reportId: Int64, status: String, note: String?
    ) async throws(ModerationError) -> Ops.AdminResolve.Result {
        try await requireAdministrator(caller)
        guard status == "resolved" || status == "dismissed" else { throw .unknownResolution }
        try Self.check(note, Self.noteRule)
        let me = caller.userId
        let report = try await db.write(as: ModerationError.self) { db -> ModerationReport? in
            guard try ModerationRepository.close(db, reportId: reportId, by: me, status: status, note: note) else {
                return nil
            }
            try ModerationRepository.audit(
                db, actorId: me, actor: "user:\(me)", action: status == "resolved" ? "resolve" : "dismiss",
                targetKind: "report", targetId: reportId, reason: note)
            return try ModerationRepository.report(db, id: reportId)
        }
        guard let report else { throw .noSuchReport }
        return .init(report: report)
    }

    /// `admin.suspend` (`suspend`) or `admin.reinstate`: sets or clears the account's suspension, audits a change,
    /// and for a suspension resolves `reportId` (one transaction). An administrator cannot suspend itself. The caller
    /// closes the account's connections after a suspension (also when it was suspended already: a connection that
    /// authenticated in between is closed too).
    func setSuspended(
        _ caller: Caller, userId: Int64, reason: String?, reportId: Int64?, suspend: Bool
    ) async throws(ModerationError) -> ModerationUserResult {
        try await requireAdministrator(caller)
        try Self.check(reason, Self.reasonRule)
        let me = caller.userId
        if suspend && userId == me { throw .selfSuspension }
        let changed = try await db.write(as: ModerationError.self) { db -> Bool? in
            guard let changed = try ModerationRepository.setSuspended(db, userId, suspend) else { return nil }
            if changed {
                try ModerationRepository.audit(
                    db, actorId: me, actor: "user:\(me)", action: suspend ? "suspend" : "reinstate", targetKind: "user",
                    targetId: userId, reason: reason)
            }
            if suspend, let reportId {
                _ = try ModerationRepository.close(db, reportId: reportId, by: me, status: "resolved", note: reason)
            }
            return changed
        }
        guard changed != nil else { throw .noSuchUser }
        return ModerationUserResult(userId: userId, suspended: suspend)
    }

    /// `admin.remove`, before the conversation's writer removes the message: the caller's role, the reason, and the
    /// message's conversation (`noSuchMessage` when there is none).
    func removal(_ caller: Caller, messageId: Int64, reason: String?) async throws(ModerationError) -> Int64 {
        try await requireAdministrator(caller)
        try Self.check(reason, Self.reasonRule)
        let info = try await db.read(as: ModerationError.self) { db in
            try MessageStore.messageInfo(db, messageId: messageId)
        }
        guard let info else { throw .noSuchMessage }
        return info.conversationId
    }

    /// `admin.remove`, after the writer committed the removal: its audit row and `reportId`'s resolution, in a
    /// second transaction (if it fails, the answer is an error although the message is removed).
    func recordRemoval(
        _ caller: Caller, messageId: Int64, reason: String?, reportId: Int64?
    ) async throws(ModerationError) {
        let me = caller.userId
        try await db.write(as: ModerationError.self) { db in
            try ModerationRepository.audit(
                db, actorId: me, actor: "user:\(me)", action: "remove", targetKind: "message", targetId: messageId,
                reason: reason)
            if let reportId {
                _ = try ModerationRepository.close(db, reportId: reportId, by: me, status: "resolved", note: reason)
            }
        }
    }

    // MARK: - Rules

    /// `administratorsOnly` unless the caller is an administrator.
    private func requireAdministrator(_ caller: Caller) async throws(ModerationError) {
        try await db.requireAdministrator(caller.userId, otherwise: ModerationError.administratorsOnly)
    }

    /// `invalidText` (the validator's message) unless `text` is nil or a valid stored string under `rule`.
    static func check(_ text: String?, _ rule: TextRule) throws(ModerationError) {
        if let text, let problem = StoredText.problem(text, rule) { throw .invalidText(problem) }
    }

    /// A page size (`limit` or the default, at most `maxPage`) and a `before` id of 1 or more.
    static func pageLimit(_ limit: Int?, before: Int64?) throws(ModerationError) -> Int {
        let limit = limit ?? defaultPage
        guard (1...maxPage).contains(limit) else { throw .pageLimit(max: maxPage) }
        if let before, before < 1 { throw .badBefore }
        return limit
    }
}
