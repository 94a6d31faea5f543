//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A participant of a conversation.
public struct ConversationMember: Codable, Sendable, Equatable {
    public var userId: Int64
    public var displayName: String
    /// The member's read marker: the highest seq it has read.
    public var readSeq: Int64

    public init(userId: Int64, displayName: String, readSeq: Int64) {
        self.userId = userId
        self.displayName = displayName
        self.readSeq = readSeq
    }
}
