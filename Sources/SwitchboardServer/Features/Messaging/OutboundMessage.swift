//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol
import SwitchboardTransport
import SwitchboardWebSocket

/// A message event encoded once and shared by every recipient: the JSON payload and, for connections
/// without compression, the complete WebSocket frame.
final class OutboundMessage: Sendable {
    let conversationId: Int64
    let seq: Int64
    let payload: [UInt8]
    let frame: SharedBytes

    convenience init(_ message: ChatMessage) {
        self.init(conversationId: message.conversationId, seq: message.seq, payload: message.eventJSON)
    }

    /// A message event already encoded (from another node).
    init(conversationId: Int64, seq: Int64, payload: [UInt8]) {
        self.conversationId = conversationId
        self.seq = seq
        self.payload = payload
        frame = SharedBytes(WebSocketFrameEncoder.encode(opcode: .text, payload: payload))
    }
}
