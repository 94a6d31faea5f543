//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `reactions.set`: the message's counts after the change.
public struct ReactionsResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var messageId: Int64
    public var reactions: [ReactionCount]
    public init(conversationId: Int64, messageId: Int64, reactions: [ReactionCount]) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.reactions = reactions
    }
}
