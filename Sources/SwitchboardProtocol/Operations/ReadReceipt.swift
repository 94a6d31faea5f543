//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `conversation.read`: a member moved its read marker.
public struct ReadReceipt: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "conversation.read"
    public var conversationId: Int64
    public var userId: Int64
    public var seq: Int64
    public init(conversationId: Int64, userId: Int64, seq: Int64) {
        self.conversationId = conversationId
        self.userId = userId
        self.seq = seq
    }
}
