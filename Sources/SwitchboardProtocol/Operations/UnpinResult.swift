//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The result of `messages.unpin`.
public struct UnpinResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var messageId: Int64
    public init(conversationId: Int64, messageId: Int64) {
        self.conversationId = conversationId
        self.messageId = messageId
    }
}
