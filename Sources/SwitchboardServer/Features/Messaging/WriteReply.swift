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

/// How a write answers its origin connection.
enum WriteReply: Sendable {
    /// The short acknowledgement of `messages.send` (`conversation_id`, `message_id`, `seq`, `ts`).
    case ack(RequestID)
    /// `{"message": ...}` (group changes, deletions) to a request of `op`.
    case message(RequestID, op: String)
    /// A new group's announcement was delivered: the connection answers with the group's summary.
    case announced(RequestID)

    func reply(_ result: Result<ChatMessage, ServiceError>) -> EngineReply {
        switch self {
        case .ack(let id): .message(id, op: Ops.MessagesSend.name, result, ack: true)
        case .message(let id, let op): .message(id, op: op, result, ack: false)
        case .announced(let id):
            switch result {
            case .success(let m): .groupAnnounced(id, conversationId: m.conversationId)
            case .failure(let e): .message(id, op: Ops.GroupsCreate.name, .failure(e), ack: false)
            }
        }
    }
}
