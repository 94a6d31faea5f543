//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `message {message}`: a new message, to the online devices of the members who see it (except the sending
/// connection).
///
/// The server encodes it once per message with the hand-written `ChatMessage.eventJSON` (the hot path); a test
/// compares that with the `Codable` form (`ProtocolCodec.encodeEvent(_:)`) as parsed JSON.
public struct MessageEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message"
    /// The message as stored.
    public var message: ChatMessage

    /// The fields of the event.
    public init(message: ChatMessage) { self.message = message }

    /// The event frame, without `JSONEncoder`: `message.eventJSON`.
    public var eventJSON: [UInt8] { message.eventJSON }
}
