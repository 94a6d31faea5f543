//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// A change to one conversation, as the messaging rules see it (the server adds who asked and how to answer).
public struct ConversationWrite: Sendable {
    public enum Action: Sendable {
        /// A text or voice message (`body` is the text or the voice attachment's JSON).
        case send(kind: ChatMessage.Kind, body: String, clientId: String?, voiceId: Int64?)
        case add(userId: Int64)
        case leave
        case rename(String)
        case delete(messageId: Int64)
        /// An administrator removes a message (moderation): no membership check; the tombstone is the system
        /// message `message_removed` (no actor named).
        case remove(messageId: Int64)
        /// A system message from the server (call records); no membership check.
        case system(SystemEvent)
        /// A message stored already (a new group's first message): only delivered.
        case announce(ChatMessage)
    }

    public var conversationId: Int64
    public var actor: Int64
    public var action: Action

    public init(conversationId: Int64, actor: Int64, action: Action) {
        self.conversationId = conversationId
        self.actor = actor
        self.action = action
    }
}
