//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A conversation as `conversations.list` and `conversations.get` show it.
public struct ConversationSummary: Codable, Sendable, Equatable {
    public var conversationId: Int64
    /// `direct` or `group`.
    public var kind: String
    /// The group's name, or the other members' names.
    public var name: String
    /// Current members (for a direct conversation, both users).
    public var members: [ConversationMember]
    public var lastSeq: Int64
    public var lastActivityAt: String
    /// My read marker.
    public var readSeq: Int64
    /// Messages from others after my read marker (not counting hidden ones).
    public var unreadCount: Int64
    /// The newest message visible to me (text cut to 100 characters).
    public var lastMessage: ChatMessage?
    /// False once I have left the group (I still see its history up to my leaving).
    public var active: Bool

    public init(
        conversationId: Int64, kind: String, name: String, members: [ConversationMember], lastSeq: Int64,
        lastActivityAt: String,
        readSeq: Int64, unreadCount: Int64, lastMessage: ChatMessage?, active: Bool
    ) {
        self.conversationId = conversationId
        self.kind = kind
        self.name = name
        self.members = members
        self.lastSeq = lastSeq
        self.lastActivityAt = lastActivityAt
        self.readSeq = readSeq
        self.unreadCount = unreadCount
        self.lastMessage = lastMessage
        self.active = active
    }
}
