//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `sync`, after its catch-up: each conversation's last seq and the number of messages sent.
public struct SyncResult: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var conversationId: Int64
        public var lastSeq: Int64
        public init(conversationId: Int64, lastSeq: Int64) {
            self.conversationId = conversationId
            self.lastSeq = lastSeq
        }
    }

    public var conversations: [Entry]
    /// Messages the catch-up sent (before the client dropped duplicates).
    public var messages: Int
    public init(conversations: [Entry], messages: Int) {
        self.conversations = conversations
        self.messages = messages
    }
}
