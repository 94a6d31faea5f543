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

/// Conversations and messages: `conversations.*`, `groups.*`, `messages.*`, `sync` (docs/protocol.md,
/// "Messaging"). The rules, reads, read markers, hiding and pins are `MessagingService`'s; writes that must be
/// ordered with the message stream go to the conversation's writer (`MessageHub`) once the service's checks passed.
/// The connection's delivery state (live events, held events, catch-up) is `ProtocolApplication`'s. Owns its
/// part of account deletion and export (memberships, messages, hidden marks, pins; `conversations.json`,
/// `message_pins.json`).
struct MessagingFeature: Feature {
    static let migrations: [Migration] = [
        .v0002Messaging, .v0006ConversationVersions, .v0014MessagePins, .v0015TombstonePurge,
    ]

    let service: MessagingService

    init(context: ProtocolServices) {
        service = MessagingService(db: context.pool, configuration: context.messages.configuration)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(MessagingAccountData.deletionSteps)
        registry.add(MessagingAccountData.exportSection)
        registry.add(MessagingAccountData.pinsExportSection)
        registry.configuration.append(Self.configurationGroup(service.configuration))
        let service = self.service
        registry.operations.register(Ops.MessagesSend.self) { context, p in Self.send(context, p, service) }
        registry.operations.register(Ops.ConversationsList.self) { s, _ async throws(MessagingError) in
            try await service.conversations(viewer: s.userId)
        }
        registry.operations.register(Ops.ConversationsGet.self) { s, p async throws(MessagingError) in
            try await service.conversation(p.conversationId, viewer: s.userId)
        }
        registry.operations.register(Ops.ConversationsDirect.self) { s, p async throws(MessagingError) in
            try await service.direct(s.userId, with: p.userId)
        }
        registry.operations.register(Ops.GroupsCreate.self) { context, p in Self.createGroup(context, p, service) }
        registry.operations.register(Ops.GroupsAdd.self) { context, p in
            Self.submit(context, p.conversationId, .add(userId: p.userId))
        }
        registry.operations.register(Ops.GroupsLeave.self) { context, p in
            Self.submit(context, p.conversationId, .leave)
        }
        registry.operations.register(Ops.GroupsRename.self) { context, p in
            do throws(MessagingError) {
                try service.checkGroupName(p.name)
            } catch {
                context.fail(error.wire)
                return
            }
            Self.submit(context, p.conversationId, .rename(p.name))
        }
        registry.operations.register(Ops.MessagesDelete.self) { context, p in
            guard let device = context.device else { return }
            let hub = context.services.messages
            let (me, id) = (context.me, context.id)
            context.run(
                { () async throws(ServiceError) -> Int64 in
                    do throws(MessagingError) { return try await service.conversationOf(message: p.messageId) } catch {
                        throw error.wire
                    }
                },
                replyWith: { _, conversationId in
                    hub.submit(
                        WriteRequest(
                            conversationId: conversationId, actor: me, action: .delete(messageId: p.messageId),
                            origin: device, reply: .message(id, op: Ops.MessagesDelete.name)))
                })
        }
        registry.operations.register(Ops.MessagesHistory.self) { s, p async throws(MessagingError) in
            try await service.history(
                viewer: s.userId, conversationId: p.conversationId, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.MessagesHide.self) { s, p async throws(MessagingError) -> Empty in
            s.deliver(try await service.hide(userId: s.userId, messageId: p.messageId))
            return Empty()
        }
        registry.operations.register(Ops.ConversationsRead.self) { context, p in
            // The event goes to every member's devices but the connection that read.
            let (me, except, deliveries) = (context.me, context.connection.connectionId, context.services.deliveries)
            context.run { () async throws(ServiceError) -> Ops.ConversationsRead.Result in
                do throws(MessagingError) {
                    let (result, events) = try await service.markRead(
                        userId: me, conversationId: p.conversationId, seq: p.seq)
                    for event in events { deliveries.send(event.encoded(), toUsers: event.users, except: except) }
                    return result
                } catch { throw error.wire }
            }
        }
        registry.operations.register(Ops.MessagesPin.self) { s, p async throws(MessagingError) -> PinResult in
            let (result, events) = try await service.pin(s.caller, messageId: p.messageId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.MessagesUnpin.self) { s, p async throws(MessagingError) -> UnpinResult in
            let (result, events) = try await service.unpin(s.caller, messageId: p.messageId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.ConversationsPins.self) { s, p async throws(MessagingError) in
            try await service.pins(conversationId: p.conversationId, viewer: s.userId)
        }
        registry.operations.register(Ops.Sync.self) { context, p in
            let since: [Int64: Int64]
            do throws(MessagingError) {
                since = try service.since(p.since)
            } catch {
                context.fail(error.wire)
                return
            }
            context.connection.startSync(context.id, since: since, userId: context.me, service: service)
        }
    }

    /// The limits messaging runs with (flag names of docs/configuration.md).
    static func configurationGroup(_ c: MessagingConfiguration) -> ConfigurationGroup {
        ConfigurationGroup(
            feature: "messaging",
            values: [
                ("max-text-characters", "\(c.maxTextCharacters)"), ("max-text-bytes", "\(c.maxTextBytes)"),
                ("max-group-members", "\(c.maxGroupMembers)"), ("message-batch", "\(c.maxBatch)"),
                ("max-pending-writes", "\(c.maxPendingWrites)"), ("message-writers", "\(c.writers)"),
                ("history-max-limit", "\(c.historyMaxLimit)"), ("max-held-during-sync", "\(c.maxHeldDuringSync)"),
                ("send-rate", "\(c.sendsPerSecond)"), ("max-pinned-messages", "\(c.maxPinnedMessages)"),
                ("commit-resolution-timeout", "\(c.commitResolutionTimeout)"),
            ])
    }

    /// Hands a group change to the conversation's writer, which checks it under the conversation's lock and
    /// answers `{message}` (the system message) after the commit.
    static func submit<Op: ProtocolOperation>(
        _ context: RequestContext<Op>, _ conversationId: Int64, _ action: WriteRequest.Action
    ) {
        guard let device = context.device else { return }
        context.services.messages.submit(
            WriteRequest(
                conversationId: conversationId, actor: context.me, action: action, origin: device,
                reply: .message(context.id, op: context.op)))
    }

    /// `messages.send`. The hot path (text to a `conversation_id`) hands the message to the conversation's
    /// writer straight from the loop, with no database round trip before it and a hand-written ack; the service's
    /// checks before it are synchronous and allocate nothing unless they refuse.
    static func send(
        _ context: RequestContext<Ops.MessagesSend>, _ p: Ops.MessagesSend.Parameters, _ service: MessagingService
    ) {
        guard let device = context.device else { return }
        let hub = context.services.messages
        let me = context.me
        let id = context.id
        let kind: ChatMessage.Kind
        do throws(MessagingError) {
            kind = try service.admitSend(
                userId: me, limitShare: context.limitShare, clientId: p.clientId, text: p.text, voiceId: p.voiceId)
        } catch {
            context.fail(error.wire)
            return
        }
        let text = p.text ?? ""
        // A voice message carries its clip's metadata; the clip must be the sender's own upload.
        let submitWith: @Sendable (Int64, String, Int64?) -> Void = { conversationId, body, voiceId in
            hub.submit(
                WriteRequest(
                    conversationId: conversationId, actor: me,
                    action: .send(kind: kind, body: body, clientId: p.clientId, voiceId: voiceId), origin: device,
                    reply: .ack(id)))
        }
        if kind == .text, let conversationId = p.conversationId {
            // The hot path: no database round trip before the writer.
            submitWith(conversationId, text, nil)
            return
        }
        context.run(
            { () async throws(ServiceError) -> (conversationId: Int64, body: String, voiceId: Int64?) in
                do throws(MessagingError) {
                    return try await service.resolveSend(
                        userId: me, conversationId: p.conversationId, otherUser: p.userId, text: text,
                        voiceId: p.voiceId)
                } catch { throw error.wire }
            }, replyWith: { _, r in submitWith(r.conversationId, r.body, r.voiceId) })
    }

    /// `groups.create`: the group is stored (the service's checks and transaction), then announced by its writer
    /// (before any later message), then the reply (the new conversation) follows the announcement.
    static func createGroup(
        _ context: RequestContext<Ops.GroupsCreate>, _ p: Ops.GroupsCreate.Parameters, _ service: MessagingService
    ) {
        guard let device = context.device else { return }
        let hub = context.services.messages
        let (me, id) = (context.me, context.id)
        context.run(
            { () async throws(ServiceError) -> ChatMessage in
                do throws(MessagingError) {
                    return try await service.createGroup(creator: me, memberIds: p.memberIds, name: p.name)
                } catch { throw error.wire }
            },
            replyWith: { _, message in
                hub.submit(
                    WriteRequest(
                        conversationId: message.conversationId, actor: me, action: .announce(message), origin: device,
                        reply: .announced(id)))
            })
    }

    /// `{"ok":{"conversation_id","message_id","seq","ts"},"re":id}` without `JSONEncoder` (the hot path; a
    /// unit test compares it with `ProtocolCodec.encodeReply`).
    static func ackJSON(_ id: RequestID, _ m: ChatMessage) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ok")
        w.beginObject()
        w.key("conversation_id")
        w.int(m.conversationId)
        w.key("message_id")
        w.int(m.id)
        w.key("seq")
        w.int(m.seq)
        w.key("ts")
        w.string(m.ts)
        w.endObject()
        w.key("re")
        switch id {
        case .int(let i): w.int(i)
        case .string(let s): w.string(s)
        }
        w.endObject()
        return w.bytes
    }

}
