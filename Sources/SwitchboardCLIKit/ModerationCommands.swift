//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol

// report message|user, admin reports|remove|suspend|reinstate|resolve|audit (docs/moderation.md).
extension CLIContext {
    /// `report message CONVERSATION SEQ --reason R [--text T]`: the message at `seq` of a chat (a friend, a group
    /// or a conversation id, as `chat`).
    public func reportMessage(conversation target: String, seq: Int64, reason: String, text: String?)
        async throws(CLIError)
    {
        try await withSession { session throws(CLIError) in
            let client = session.client
            let messageId: Int64
            do {
                let friends = try await client.friends()
                let resolved = try TargetResolver.chat(
                    TargetQuery.classify(target), friends: friends, conversations: try await client.conversations())
                let conversationId: Int64
                switch resolved {
                case .conversation(let id): conversationId = id
                case .friend(let userId, _):
                    conversationId = try await client.directConversation(with: userId).conversationId
                }
                guard seq >= 1,
                    let m = try await client.history(conversationId, before: seq + 1, limit: 1).messages.first,
                    m.seq == seq
                else {
                    throw CLIError("no message \(seq) in that conversation", exitCode: .usage)
                }
                messageId = m.id
            } catch let error as CLIError {
                throw error
            } catch let error as SwitchboardClientError {
                throw fail(error, "finding the message", session.url)
            } catch {
                throw CLIError("finding the message: \(error)", exitCode: .serverRefused)
            }
            try await fileReport(session, kind: "message", id: messageId, reason: reason, text: text)
        }
    }

    /// `report user NAME --reason R [--text T]`: a friend, or someone in one of my conversations, by name or `#id`.
    public func reportUser(_ name: String, reason: String, text: String?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let client = session.client
            var userId: Int64
            do {
                let query = TargetQuery.classify(name)
                if case .id(let id) = query {
                    userId = id
                } else if let friend = try? TargetResolver.friend(query, in: try await client.friends()) {
                    userId = friend.userId
                } else {
                    let people = try await client.conversations().flatMap(\.members).filter {
                        $0.userId != session.me.userId
                    }
                    let lower = name.lowercased()
                    let hits = Set(people.filter { $0.displayName.lowercased() == lower }.map(\.userId))
                    guard hits.count == 1, let hit = hits.first else {
                        throw CLIError(
                            hits.isEmpty
                                ? "nobody called \(name) among your friends and conversations"
                                : "\(name) is ambiguous: use #USER_ID",
                            exitCode: .usage)
                    }
                    userId = hit
                }
            } catch let error as CLIError {
                throw error
            } catch let error as SwitchboardClientError {
                throw fail(error, "finding the user", session.url)
            } catch {
                throw CLIError("finding the user: \(error)", exitCode: .serverRefused)
            }
            try await fileReport(session, kind: "user", id: userId, reason: reason, text: text)
        }
    }

    private func fileReport(_ session: AuthenticatedSession, kind: String, id: Int64, reason: String, text: String?)
        async throws(CLIError)
    {
        do throws(SwitchboardClientError) {
            let r = try await session.client.send(
                Ops.ReportCreate.self, .init(targetKind: kind, targetId: id, reason: reason, text: text))
            printer.emit(
                OutputRecord(
                    "report.created",
                    ["report_id": .int(r.reportId), "target_kind": .string(kind), "target_id": .int(id)],
                    text: "report #\(r.reportId) sent; thank you", style: .success))
        } catch { throw fail(error, "reporting", session.url) }
    }

    /// `admin reports [--closed] [--before N] [--limit N]`.
    public func adminReports(closed: Bool, before: Int64?, limit: Int?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let page: Ops.AdminReports.Result
            do throws(SwitchboardClientError) {
                page = try await session.client.send(
                    Ops.AdminReports.self, .init(status: closed ? "closed" : "open", before: before, limit: limit))
            } catch { throw fail(error, "listing reports", session.url) }
            if page.reports.isEmpty { printer.hint(closed ? "no closed reports" : "no open reports") }
            for r in page.reports {
                var fields: [String: JSONValue] = [
                    "report_id": .int(r.reportId), "status": .string(r.status), "target_kind": .string(r.targetKind),
                    "target_id": .int(r.targetId), "reason": .string(r.reason), "created_at": .string(r.createdAt),
                ]
                if let u = r.targetUser { fields["target_user_id"] = .int(u.userId) }
                if let u = r.reporter { fields["reporter_id"] = .int(u.userId) }
                if let c = r.content { fields["content"] = .string(c) }
                if let s = r.messageState { fields["message_state"] = .string(s) }
                if let t = r.text { fields["text"] = .string(t) }
                let who =
                    r.targetUser.map { "\($0.displayName) #\($0.userId)\($0.suspended == true ? " (suspended)" : "")" }
                    ?? "?"
                let what =
                    r.targetKind == "message"
                    ? "message \(r.targetId) by \(who) [\(r.messageState ?? "?")]: \(r.content ?? "")" : "user \(who)"
                let by = r.reporter.map { " from \($0.displayName) #\($0.userId)" } ?? ""
                printer.emit(
                    OutputRecord(
                        "report", fields,
                        text: "#\(r.reportId) \(r.status) \(r.reason)\(by): \(what)\(r.text.map { " (\($0))" } ?? "")",
                        style: r.status == "open" ? .plain : .dim))
            }
            if let next = page.nextBefore { printer.hint("more: --before \(next)") }
        }
    }

    /// `admin remove MESSAGE_ID [--reason R] [--report N]`.
    public func adminRemove(messageId: Int64, reason: String?, report: Int64?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            do throws(SwitchboardClientError) {
                let r = try await session.client.send(
                    Ops.AdminRemove.self, .init(messageId: messageId, reason: reason, reportId: report))
                printer.emit(
                    OutputRecord(
                        "message.removed",
                        ["message_id": .int(messageId), "conversation_id": .int(r.message.conversationId)],
                        text: "message \(messageId) removed", style: .success))
            } catch { throw fail(error, "removing the message", session.url) }
        }
    }

    /// `admin suspend USER` / `admin reinstate USER` (a user id, `#N` or `N`).
    public func adminSuspend(_ user: String, suspend: Bool, reason: String?, report: Int64?) async throws(CLIError) {
        guard let userId = Int64(user.hasPrefix("#") ? String(user.dropFirst()) : user) else {
            throw CLIError("USER is a user id (as `admin reports` shows it)", exitCode: .usage)
        }
        try await withSession { session throws(CLIError) in
            do throws(SwitchboardClientError) {
                let p = ModerationUserParameters(userId: userId, reason: reason, reportId: report)
                let r =
                    suspend
                    ? try await session.client.send(Ops.AdminSuspend.self, p)
                    : try await session.client.send(Ops.AdminReinstate.self, p)
                printer.emit(
                    OutputRecord(
                        suspend ? "user.suspended" : "user.reinstated",
                        ["user_id": .int(r.userId), "suspended": .bool(r.suspended)],
                        text: "user \(r.userId) \(r.suspended ? "suspended" : "reinstated")", style: .success))
            } catch { throw fail(error, suspend ? "suspending" : "reinstating", session.url) }
        }
    }

    /// `admin resolve REPORT [--dismiss] [--note N]`.
    public func adminResolve(report: Int64, dismiss: Bool, note: String?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            do throws(SwitchboardClientError) {
                let r = try await session.client.send(
                    Ops.AdminResolve.self,
                    .init(reportId: report, status: dismiss ? "dismissed" : "resolved", note: note))
                printer.emit(
                    OutputRecord(
                        "report.closed", ["report_id": .int(report), "status": .string(r.report.status)],
                        text: "report #\(report) \(r.report.status)", style: .success))
            } catch { throw fail(error, "closing the report", session.url) }
        }
    }

    /// `admin audit [--before N] [--limit N]`.
    public func adminAudit(before: Int64?, limit: Int?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let page: Ops.AdminAudit.Result
            do throws(SwitchboardClientError) {
                page = try await session.client.send(Ops.AdminAudit.self, .init(before: before, limit: limit))
            } catch { throw fail(error, "reading the audit log", session.url) }
            if page.entries.isEmpty { printer.hint("the audit log is empty") }
            for e in page.entries {
                var fields: [String: JSONValue] = [
                    "entry_id": .int(e.entryId), "actor": .string(e.actor), "action": .string(e.action),
                    "target_kind": .string(e.targetKind),
                    "created_at": .string(e.createdAt),
                ]
                if let t = e.targetId { fields["target_id"] = .int(t) }
                if let r = e.reason { fields["reason"] = .string(r) }
                printer.emit(
                    OutputRecord(
                        "audit", fields,
                        text:
                            """
                            \(e.createdAt)  \(e.actor)  \(e.action) \(e.targetKind) \
                            \(e.targetId.map(String.init) ?? "-")\(e.reason.map { "  (\($0))" } ?? "")
                            """
                    ))
            }
            if let next = page.nextBefore { printer.hint("more: --before \(next)") }
        }
    }
}
