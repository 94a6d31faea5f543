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

/// Reports and moderation (`docs/moderation.md`): `report.create` for every user, `admin.*` for administrators.
/// Each handler decodes, asks `ModerationService` (the role check, the rules, one read or transaction), and replies.
///
/// The engines' parts stay here: a removal goes through the conversation's writer like `messages.delete` (the
/// tombstone `message_removed` reaches every member's connections on every node, and history) between the service's
/// checks and its audit row; a suspension is announced like a session revocation (each node closes its own
/// connections of the account with 4004) after the service's transaction. Every action is written to the audit log.
///
/// The `admin.*` ops are `administratorsOnly`: the router reads the role before it decodes their parameters, so a
/// non-administrator gets `forbidden` whatever it sent; the service checks the role again in its own use case.
struct ModerationFeature: Feature {
    static let migrations: [Migration] = [.v0008Moderation]

    let service: ModerationService

    init(context: ProtocolServices) {
        service = ModerationService(db: context.pool, reportsPerHour: context.configuration.messaging.reportsPerHour)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.configuration.append(
            ConfigurationGroup(feature: "moderation", values: [("report-rate", "\(service.reportsPerHour)")]))
        let service = self.service
        registry.operations.register(Ops.ReportCreate.self) { s, p async throws(ModerationError) in
            try await service.report(
                s.caller, targetKind: p.targetKind, targetId: p.targetId, reason: p.reason, text: p.text)
        }
        registry.operations.register(Ops.AdminReports.self) { s, p async throws(ModerationError) in
            try await service.reports(s.caller, status: p.status, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.AdminAudit.self) { s, p async throws(ModerationError) in
            try await service.audit(s.caller, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.AdminResolve.self) { s, p async throws(ModerationError) in
            try await service.resolve(s.caller, reportId: p.reportId, status: p.status, note: p.note)
        }
        registry.operations.register(Ops.AdminSuspend.self) {
            s, p async throws(ModerationError) -> ModerationUserResult in
            let result = try await service.setSuspended(
                s.caller, userId: p.userId, reason: p.reason, reportId: p.reportId, suspend: true)
            // Also when it was suspended already: a connection that authenticated in between is closed too.
            s.services.deliveries.suspend(userId: p.userId)
            return result
        }
        registry.operations.register(Ops.AdminReinstate.self) {
            s, p async throws(ModerationError) -> ModerationUserResult in
            try await service.setSuspended(
                s.caller, userId: p.userId, reason: p.reason, reportId: p.reportId, suspend: false)
        }
        registry.operations.register(Ops.AdminRemove.self) { s, p async throws(ModerationError) -> MessageResult in
            let caller = s.caller
            let conversationId = try await service.removal(caller, messageId: p.messageId, reason: p.reason)
            let tombstone = try await Self.remove(
                p.messageId, in: conversationId, by: caller.userId, hub: s.services.messages)
            try await service.recordRemoval(caller, messageId: p.messageId, reason: p.reason, reportId: p.reportId)
            return MessageResult(message: tombstone)
        }
    }

    /// Has the conversation's writer remove the message (text gone, the tombstone appended and delivered to every
    /// member); its tombstone once committed, or the writer's refusal.
    static func remove(
        _ messageId: Int64, in conversationId: Int64, by actor: Int64, hub: MessageHub
    ) async throws(ModerationError) -> ChatMessage {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<ChatMessage, ServiceError>, Never>) in
            hub.submit(
                WriteRequest(
                    conversationId: conversationId, actor: actor, action: .remove(messageId: messageId), origin: nil,
                    reply: nil, completion: { continuation.resume(returning: $0) }))
        }
        switch result {
        case .success(let tombstone): return tombstone
        case .failure(let refusal): throw .writerRefused(refusal)
        }
    }
}
