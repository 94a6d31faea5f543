//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `message.unpinned`: a member unpinned a message.
public struct MessageUnpinnedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message.unpinned"
    public var conversationId: Int64
    public var messageId: Int64
    /// The member who unpinned it.
    public var userId: Int64
    public init(conversationId: Int64, messageId: Int64, userId: Int64) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.userId = userId
    }
}
