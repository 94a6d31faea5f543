//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport
import SwitchboardWebSocket

/// What a protocol connection (`ProtocolApplication`) needs of the connection it runs on: a narrow port that the
/// HTTP session implements for a WebSocket, and that tests implement without a socket (the harness drives the real
/// router, ordered lane and admission control through it). Every member is called on the connection's loop queue.
protocol ConnectionPort: AnyObject {
    /// The connection's loop (its queue protects the protocol connection's state).
    var loop: EventLoop { get }
    /// The transport's connection number, for logs.
    var connectionNumber: UInt64 { get }
    /// The client's address without port (behind a trusted proxy, the one it forwarded for).
    var clientAddress: String { get }
    /// Bytes queued for the peer and not yet written.
    var outboundBytes: Int { get }
    /// Whether the WebSocket is open (messages sent while it is not are dropped).
    var isOpen: Bool { get }

    /// Sends one text message.
    func sendText(_ bytes: [UInt8])
    /// Sends an encoded event; the same event posted to many connections of a loop may share one frame.
    func sendEvent(_ bytes: [UInt8])
    /// Sends a message event encoded once for many connections.
    func sendShared(_ message: OutboundMessage)
    /// Sends live message events encoded once for many connections with one look at the connection for the whole
    /// run (the fan-out's hot path): nothing, and no call to `keep`, unless the WebSocket is open; else each message
    /// `keep` accepts, in order.
    func sendShared(_ messages: [OutboundMessage], keeping keep: (OutboundMessage) -> Bool)
    /// The same for one live message.
    func sendShared(_ message: OutboundMessage, keeping keep: (OutboundMessage) -> Bool)
    /// Sends a fan-out event's prebuilt uncompressed frame.
    func sendFanout(_ frame: SharedBytes)
    /// Starts the closing handshake with `code`.
    func closeWebSocket(code: UInt16, reason: String)
    /// Stops reading from the peer (admission control's pause).
    func pauseReading()
    /// Reads from the peer again.
    func resumeReading()
    /// Writes what is queued now, instead of at the end of the loop's turn.
    func flush()
}

extension HTTPSession: ConnectionPort {
    var loop: EventLoop { connection.loop }
    var connectionNumber: UInt64 { connection.id }
    var outboundBytes: Int { connection.outboundBytes }
    var isOpen: Bool { webSocket != nil }
    func sendText(_ bytes: [UInt8]) { send(.text, bytes) }
    func sendShared(_ messages: [OutboundMessage], keeping keep: (OutboundMessage) -> Bool) {
        guard let ws = webSocket else { return }
        for message in messages where keep(message) { sendShared(message, on: ws) }
    }
    func sendShared(_ message: OutboundMessage, keeping keep: (OutboundMessage) -> Bool) {
        guard let ws = webSocket, keep(message) else { return }
        sendShared(message, on: ws)
    }
    func pauseReading() { connection.pauseReading() }
    func resumeReading() { connection.resumeReading() }
    func flush() { connection.flush() }
}
