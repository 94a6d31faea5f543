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

/// A change to one conversation, executed by the conversation's writer in order with all others.
struct WriteRequest: Sendable {
    typealias Action = ConversationWrite.Action

    var conversationId: Int64
    var actor: Int64
    var action: Action
    /// The requesting connection: it gets the reply and not the message event.
    var origin: Device?
    /// How the origin is answered after the commit, before the message is delivered (through the outbox).
    var reply: WriteReply?
    /// Called on the writer's queue after the commit (server-originated writes).
    var completion: (@Sendable (Result<ChatMessage, ServiceError>) -> Void)?
}

extension [WriteRequest] {
    /// The conversations of a batch for a log line: distinct ids, at most 8 (then "+N").
    var conversationsForLog: String {
        var seen: [Int64] = []
        for request in self where !seen.contains(request.conversationId) { seen.append(request.conversationId) }
        let shown = seen.prefix(8).map(String.init).joined(separator: ",")
        return seen.count > 8 ? "\(shown),+\(seen.count - 8)" : shown
    }
}
