//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `messages.send`: the acknowledgement.
public struct SendAck: Codable, Sendable, Equatable {
    public var messageId: Int64
    public var conversationId: Int64
    public var seq: Int64
    public var ts: String
    public init(messageId: Int64, conversationId: Int64, seq: Int64, ts: String) {
        self.messageId = messageId
        self.conversationId = conversationId
        self.seq = seq
        self.ts = ts
    }
}
