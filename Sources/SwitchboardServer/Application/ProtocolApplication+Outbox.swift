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

/// A connection takes the outbox's deliveries on its loop (`LocalOutbox`).
extension ProtocolApplication: OutboxEndpoint {
    /// A delivery from the outbox (on the loop).
    func receive(_ item: OutboxItem) {
        switch item {
        case .reply(let reply): receive(reply)
        case .message(let message): deliverMessage(message)
        case .messages(let messages): deliverMessages(messages)
        case .ephemeral(let bytes, let source): sendEphemeral(bytes, source: source)
        case .event(let bytes): sendEvent(bytes)
        case .social(let delivery): receiveSocial(delivery)
        case .revoke: sessionRevoked()
        case .suspend: accountSuspended()
        case .close(let code, let reason): port.closeWebSocket(code: code, reason: reason)
        case .reconnect: port.closeWebSocket(code: 1012, reason: "reconnect and resume")
        }
    }

    /// Writes the queued replies now (`LocalOutbox` calls it after a batch's replies).
    func flushNow() {
        if !closed { port.flush() }
    }

    /// An engine's answer to a request of this connection. Error answers are counted per op like the
    /// router's (`sendError`).
    func receive(_ reply: EngineReply) {
        switch reply {
        case .message(let id, let op, let result, let ack):
            switch result {
            case .success(let m):
                if ack {
                    port.sendText(MessagingFeature.ackJSON(id, m))
                } else {
                    port.sendText(ProtocolCodec.encodeReply(id: id, result: MessageResult(message: m)))
                }
            case .failure(let e): sendError(id, op: op, e)
            }
        case .empty(let id, let op, let error):
            if let error {
                sendError(id, op: op, error)
            } else {
                port.sendText(ProtocolCodec.encodeReply(id: id, result: Empty()))
            }
        case .raw(let id, let op, let result):
            switch result {
            case .success(let ok): port.sendText(OperationReplies.raw(id, ok))
            case .failure(let e): sendError(id, op: op, e)
            }
        case .groupAnnounced(let id, let conversationId):
            guard let me = identity?.userId else { return }
            let pool = services.pool
            run(
                id,
                { () async throws(ServiceError) -> ConversationResult in
                    do throws(MessagingError) {
                        return try await MessagingService.summary(pool, viewer: me, conversationId: conversationId)
                    } catch { throw error.wire }
                })
        }
    }
}
