//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `message.hidden`: one of my devices hid a message for me.
public struct HiddenMessage: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message.hidden"
    public var conversationId: Int64
    public var messageId: Int64
    public init(conversationId: Int64, messageId: Int64) {
        self.conversationId = conversationId
        self.messageId = messageId
    }
}
