//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import Testing

@testable import SwitchboardServer

/// `ModerationService` without sockets: what may be reported (and the one answer for what may not), the report
/// bucket on a manual clock, the administrator check before anything else, resolutions, suspensions, removals'
/// audit rows and the audit log.
@Suite("Moderation service (the test database, a manual clock)")
struct ModerationServiceTests {
    let clock = ManualClock()

    func service(reportsPerHour: Double = 20) throws -> ModerationService {
        ModerationService(db: try EngineTestDatabase.shared.pool, reportsPerHour: reportsPerHour, clock: clock)
    }

    @Test func onlyWhatTheReporterSeesMayBeReportedWithOneAnswerForTheRest() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cat, zed) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("cat"), try await db.user("zed")
        )
        let admin = try await db.user("admin")
        try await db.makeAdministrator(admin)
        try await db.befriend(cat, zed)
        let message = try await db.message(from: bob, in: [ann, bob], text: "buy now")
        let moderation = try service()
        let first = try await moderation.report(
            Caller(userId: ann), targetKind: "message", targetId: message, reason: "spam", text: "again and again")
        // The same target again while the report is open: the same report.
        let again = try await moderation.report(
            Caller(userId: ann), targetKind: "message", targetId: message, reason: "spam", text: nil)
        #expect(again.reportId == first.reportId)
        // A message the reporter does not see and one that does not exist: the same answer.
        await #expect(throws: ModerationError.noSuchMessage) {
            _ = try await moderation.report(
                Caller(userId: zed), targetKind: "message", targetId: message, reason: "spam", text: nil)
        }
        await #expect(throws: ModerationError.noSuchMessage) {
            _ = try await moderation.report(
                Caller(userId: zed), targetKind: "message", targetId: 9_000_000_000, reason: "spam", text: nil)
        }
        // People: someone I share a conversation with, or a friend; not a stranger, not myself.
        _ = try await moderation.report(
            Caller(userId: ann), targetKind: "user", targetId: bob, reason: "hate", text: nil)
        _ = try await moderation.report(
            Caller(userId: zed), targetKind: "user", targetId: cat, reason: "other", text: nil)
        for target in [bob, zed] {
            await #expect(throws: ModerationError.noSuchUser) {
                _ = try await moderation.report(
                    Caller(userId: zed), targetKind: "user", targetId: target, reason: "spam", text: nil)
            }
        }
        // The administrators see what was reported, with its text copied.
        let open = try await moderation.reports(Caller(userId: admin), status: nil, before: nil, limit: 100)
        let filed = try #require(open.reports.first { $0.reportId == first.reportId })
        #expect(filed.content == "buy now" && filed.reporter?.userId == ann && filed.targetUser?.userId == bob)
        #expect(filed.messageState == "visible" && filed.text == "again and again")
        // A deleted message is no longer reportable.
        try await db.run("UPDATE messages SET deleted_at = now() WHERE id = $1", message)
        await #expect(throws: ModerationError.messageDeleted) {
            _ = try await moderation.report(
                Caller(userId: bob), targetKind: "message", targetId: message, reason: "other", text: nil)
        }
    }

    @Test func theRulesOfAReportComeBeforeTheDatabase() async throws {
        let moderation = try service()
        let me = Caller(userId: 9_000_000_000)
        await #expect(throws: ModerationError.unknownReason) {
            _ = try await moderation.report(me, targetKind: "user", targetId: 1, reason: "boring", text: nil)
        }
        #expect(ModerationError.unknownReason.wire.message.hasPrefix("reason must be one of spam, harassment"))
        await #expect(throws: ModerationError.postsNotReportable) {
            _ = try await moderation.report(me, targetKind: "post", targetId: 1, reason: "spam", text: nil)
        }
        await #expect(throws: ModerationError.self) {
            _ = try await moderation.report(
                me, targetKind: "user", targetId: 1, reason: "spam", text: String(repeating: "a", count: 1001))
        }
        // The kind is the repository's rule.
        await #expect(throws: ModerationError.unknownTargetKind) {
            _ = try await moderation.report(me, targetKind: "photo", targetId: 1, reason: "spam", text: nil)
        }
    }

    @Test func theReportBucketRefillsOnTheClock() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        try await db.befriend(ann, bob)
        let moderation = try service(reportsPerHour: 2)
        let me = Caller(userId: ann)
        for _ in 0..<2 {
            _ = try await moderation.report(me, targetKind: "user", targetId: bob, reason: "spam", text: nil)
        }
        do {
            _ = try await moderation.report(me, targetKind: "user", targetId: bob, reason: "spam", text: nil)
            Issue.record("a third report within the burst was accepted")
        } catch {
            guard case .rateLimited(let retryAfter) = error else { throw error }
            // One report every 30 minutes.
            #expect((1_790_000...1_800_001).contains(retryAfter))
            #expect(error.wire.code == .rateLimited && error.wire.extra["retry_after_ms"] == retryAfter)
        }
        // Another user's bucket is its own.
        _ = try await moderation.report(
            Caller(userId: bob), targetKind: "user", targetId: ann, reason: "spam", text: nil)
        clock.advance(by: 1800)
        _ = try await moderation.report(me, targetKind: "user", targetId: bob, reason: "spam", text: nil)
    }

    @Test func everyAdministratorUseCaseRefusesAnyoneElseFirst() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, admin) = (try await db.user("ann"), try await db.user("bob"), try await db.user("admin"))
        try await db.makeAdministrator(admin)
        let moderation = try service()
        #expect(try await moderation.isAdministrator(admin))
        #expect(try await !moderation.isAdministrator(ann))
        #expect(try await !moderation.isAdministrator(9_000_000_000))
        let message = try await db.message(from: bob, in: [ann, bob])
        try await db.suspend(admin)
        #expect(try await !moderation.isAdministrator(admin))
        for user in [ann, admin] {
            let caller = Caller(userId: user)
            // Even with invalid parameters: the role is checked first, so nothing is learnt.
            await #expect(throws: ModerationError.administratorsOnly) {
                _ = try await moderation.reports(caller, status: "weird", before: nil, limit: nil)
            }
            await #expect(throws: ModerationError.administratorsOnly) {
                _ = try await moderation.audit(caller, before: 0, limit: nil)
            }
            await #expect(throws: ModerationError.administratorsOnly) {
                _ = try await moderation.resolve(caller, reportId: 1, status: "weird", note: nil)
            }
            await #expect(throws: ModerationError.administratorsOnly) {
                _ = try await moderation.setSuspended(caller, userId: bob, reason: nil, reportId: nil, suspend: true)
            }
            await #expect(throws: ModerationError.administratorsOnly) {
                _ = try await moderation.setSuspended(caller, userId: bob, reason: nil, reportId: nil, suspend: false)
            }
            await #expect(throws: ModerationError.administratorsOnly) {
                _ = try await moderation.removal(caller, messageId: message, reason: nil)
            }
        }
        #expect(try await db.integer("SELECT count(*) FROM users WHERE id = $1 AND suspended_at IS NULL", bob) == 1)
    }

    @Test func resolutionsSuspensionsAndRemovalsAreAuditedInOrder() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, admin) = (try await db.user("ann"), try await db.user("bob"), try await db.user("admin"))
        try await db.makeAdministrator(admin)
        let message = try await db.message(from: bob, in: [ann, bob])
        let moderation = try service()
        let me = Caller(userId: admin)
        let spam = try await moderation.report(
            Caller(userId: ann), targetKind: "message", targetId: message, reason: "spam", text: nil)
        let person = try await moderation.report(
            Caller(userId: ann), targetKind: "user", targetId: bob, reason: "harassment", text: nil)

        await #expect(throws: ModerationError.unknownResolution) {
            _ = try await moderation.resolve(me, reportId: spam.reportId, status: "ignored", note: nil)
        }
        await #expect(throws: ModerationError.noSuchReport) {
            _ = try await moderation.resolve(me, reportId: 9_000_000_000, status: "dismissed", note: nil)
        }
        let dismissed = try await moderation.resolve(me, reportId: person.reportId, status: "dismissed", note: "banter")
        #expect(dismissed.report.status == "dismissed" && dismissed.report.note == "banter")
        #expect(dismissed.report.closedBy == admin)

        await #expect(throws: ModerationError.selfSuspension) {
            _ = try await moderation.setSuspended(me, userId: admin, reason: nil, reportId: nil, suspend: true)
        }
        await #expect(throws: ModerationError.noSuchUser) {
            _ = try await moderation.setSuspended(me, userId: 9_000_000_000, reason: nil, reportId: nil, suspend: true)
        }
        // Removing the message: the checks, then (after the writer) the audit row and the report's resolution.
        await #expect(throws: ModerationError.noSuchMessage) {
            _ = try await moderation.removal(me, messageId: 9_000_000_000, reason: nil)
        }
        await #expect(throws: ModerationError.self) {
            _ = try await moderation.removal(me, messageId: message, reason: String(repeating: "r", count: 501))
        }
        #expect(try await moderation.removal(me, messageId: message, reason: "spam") > 0)
        try await moderation.recordRemoval(me, messageId: message, reason: "spam", reportId: spam.reportId)
        let suspended = try await moderation.setSuspended(
            me, userId: bob, reason: "spam", reportId: spam.reportId, suspend: true)
        #expect(suspended == ModerationUserResult(userId: bob, suspended: true))
        // Suspending again changes nothing and writes no second row.
        _ = try await moderation.setSuspended(me, userId: bob, reason: nil, reportId: nil, suspend: true)
        let reinstated = try await moderation.setSuspended(me, userId: bob, reason: nil, reportId: nil, suspend: false)
        #expect(!reinstated.suspended)

        let closed = try await moderation.reports(me, status: "closed", before: nil, limit: 100)
        #expect(closed.reports.first { $0.reportId == spam.reportId }?.status == "resolved")
        await #expect(throws: ModerationError.unknownReportStatus) {
            _ = try await moderation.reports(me, status: "all", before: nil, limit: nil)
        }
        // The audit log, newest first (other tests write to it too: only this administrator's rows).
        let log = try await moderation.audit(me, before: nil, limit: 100)
        let mine = log.entries.filter { $0.actorId == admin }
        #expect(mine.map(\.action) == ["reinstate", "suspend", "remove", "dismiss"])
        #expect(mine.map(\.targetId) == [bob, bob, message, person.reportId])
        #expect(mine.allSatisfy { $0.actor == "user:\(admin)" })
        // Pages of the log.
        let page = try await moderation.audit(me, before: nil, limit: 1)
        let next = try #require(page.nextBefore)
        #expect(page.entries.count == 1 && page.entries.first?.entryId == next)
        #expect(try await moderation.audit(me, before: next, limit: 1).entries.allSatisfy { $0.entryId < next })
        await #expect(throws: ModerationError.badBefore) { _ = try await moderation.audit(me, before: 0, limit: nil) }
        await #expect(throws: ModerationError.pageLimit(max: 100)) {
            _ = try await moderation.audit(me, before: nil, limit: 101)
        }
    }
}
