//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The result of `conversations.pins`: the pinned messages the caller sees, latest pin first.
public struct PinsResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var pins: [MessagePin]
    /// The most pins the conversation may hold (`--max-pinned-messages`).
    public var maxPins: Int
    public init(conversationId: Int64, pins: [MessagePin], maxPins: Int) {
        self.conversationId = conversationId
        self.pins = pins
        self.maxPins = maxPins
    }
}
