//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What the connection tells its owner while reading.
public enum WebSocketEvent {
    /// A complete text message; the bytes are valid UTF-8.
    case text([UInt8])
    /// A complete binary message.
    case binary([UInt8])
    /// Bytes to write to the peer (pong, close reply, our close after an error).
    case send([UInt8])
    /// The peer's close frame arrived (code nil when it carried none).
    case closeReceived(code: UInt16?, reason: String)
    /// The WebSocket is finished: flush what was sent and close TCP.
    case closed(code: UInt16)
}
