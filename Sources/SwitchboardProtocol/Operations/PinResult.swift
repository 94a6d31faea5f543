//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The result of `messages.pin`: the pin (the stored one when the message was pinned already).
public struct PinResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var pin: MessagePin
    public init(conversationId: Int64, pin: MessagePin) {
        self.conversationId = conversationId
        self.pin = pin
    }
}
