//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{conversation_id}`.
public struct ConversationIDParameters: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public init(conversationId: Int64) { self.conversationId = conversationId }
}
