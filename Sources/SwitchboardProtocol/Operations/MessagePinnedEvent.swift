//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `message.pinned`: a member pinned a message (no system message is written: pins take no seq).
public struct MessagePinnedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message.pinned"
    public var conversationId: Int64
    public var pin: MessagePin
    public init(conversationId: Int64, pin: MessagePin) {
        self.conversationId = conversationId
        self.pin = pin
    }
}
