//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport
import SwitchboardWebSocket

/// The client role of one WebSocket connection on Switchboard's transport: the upgrade request and its
/// validation, then RFC 6455 framing (masked frames, pong replies, client keepalive) through
/// `WebSocketConnection(role: .client)`.
///
/// Confined to its loop's queue: every method and callback runs there (`dispatchPrecondition`).
final class ClientSocket: ConnectionHandler, @unchecked Sendable {
    // @unchecked Sendable: references travel between closures that all run on `loop.queue`; every mutable
    // field is protected by that queue.
    /// Identifies the attempt; the owner ignores callbacks of sockets it has replaced.
    let generation: UInt64
    let loop: EventLoop
    weak var delegate: (any ClientSocketDelegate)?
    private let endpoint: ServerEndpoint
    private let offerDeflate: Bool
    private let webSocketConfiguration: WebSocketConfiguration
    private let key = WebSocketHandshake.makeKey()

    // protected by loop.queue
    private var parser = HTTPResponseHeadParser()
    // protected by loop.queue
    private var connection: Connection?
    // protected by loop.queue
    private var ws: WebSocketConnection?
    // protected by loop.queue
    private var closeCode: UInt16?
    // protected by loop.queue
    private var failure: String?
    // protected by loop.queue
    private var ended = false

    init(
        generation: UInt64, loop: EventLoop, endpoint: ServerEndpoint, offerDeflate: Bool,
        webSocketConfiguration: WebSocketConfiguration
    ) {
        self.generation = generation
        self.loop = loop
        self.endpoint = endpoint
        self.offerDeflate = offerDeflate
        self.webSocketConfiguration = webSocketConfiguration
    }

    /// Whether the upgrade succeeded and the WebSocket is not closing.
    var isOpen: Bool {
        loop.assertOnLoop()
        return ws?.state == .open && !ended
    }

    /// Connects to `address` (numeric) and performs the upgrade.
    func start(address: String, tls: TLSContext?, serverName: String?) {
        loop.assertOnLoop()
        loop.connect(host: address, port: endpoint.port, tls: tls, serverName: serverName, handler: self) {
            [self] result in
            // Failures after registration also arrive through connectionDidClose; `end` reports once.
            if case .failure(let error) = result { end(reason: "connect: \(error)") }
        }
    }

    // MARK: ConnectionHandler

    func connectionDidOpen(_ connection: Connection) {
        loop.assertOnLoop()
        if ended {
            // Given up on (connect timeout) before the TCP connection completed.
            connection.close(mode: .immediately)
            return
        }
        self.connection = connection
        connection.write(
            WebSocketHandshake.clientRequest(
                host: endpoint.hostHeader, path: endpoint.path, key: key, subprotocols: ["switchboard.v1"],
                offerDeflate: offerDeflate))
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        loop.assertOnLoop()
        if let ws {
            ws.receive(bytes, now: EventLoop.now()) { event in
                switch event {
                case .text(let message): delegate?.socket(self, didReceive: message)
                case .binary: break
                case .send(let frame): connection.write(frame)
                case .closeReceived(let code, let reason):
                    closeCode = code
                    if !reason.isEmpty { failure = reason }
                case .closed: connection.close(mode: .afterFlush)
                }
            }
            return
        }
        switch parser.feed(bytes) {
        case .needMoreData:
            return
        case .error(let error):
            failure = "the upgrade response is malformed: \(error)"
            connection.close(mode: .immediately)
        case .head(let head, let consumed):
            switch WebSocketHandshake.validateServerResponse(
                head, key: key, offeredSubprotocols: ["switchboard.v1"], offeredDeflate: offerDeflate)
            {
            case .failure(let error):
                failure = "upgrade refused: \(error)"
                connection.close(mode: .immediately)
            case .success(let outcome):
                ws = WebSocketConnection(
                    role: .client, configuration: webSocketConfiguration, deflate: outcome.deflate,
                    now: EventLoop.now())
                delegate?.socketDidOpen(self)
                if consumed < bytes.count, !ended {
                    self.connection(connection, didRead: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
                }
            }
        }
    }

    func connectionDidReadEOF(_ connection: Connection) {
        loop.assertOnLoop()
        if failure == nil && closeCode == nil { failure = "the server closed the connection" }
        connection.close(mode: .afterFlush)
    }

    func connection(_ connection: Connection, sweepAt now: UInt64) {
        guard let ws else { return }
        switch ws.tick(now: now) {
        case .none: break
        case .sendPing(let frame): connection.write(frame)
        case .sendClose:
            // Silence past the idle timeout: the connection is dead or stalled, and a close frame would wait
            // for an answer that does not come. Drop it; the owner reconnects.
            failure = "no input from the server for too long"
            connection.close(mode: .immediately)
        case .abort: connection.close(mode: .immediately)
        }
    }

    func connectionDidClose(_ connection: Connection, error: (any Error)?) {
        loop.assertOnLoop()
        end(reason: error.map { "\($0)" } ?? failure ?? "closed")
    }

    // MARK: owner's calls

    /// Sends one text message; false when the WebSocket is not open.
    @discardableResult
    func send(_ text: [UInt8]) -> Bool {
        loop.assertOnLoop()
        guard !ended, let ws, let connection, let frame = ws.makeMessage(.text, payload: text) else { return false }
        connection.write(frame)
        return true
    }

    /// Starts the closing handshake (or drops the connection when it is not open yet).
    func close(code: UInt16 = 1000) {
        loop.assertOnLoop()
        guard let connection else {
            abort(reason: "closed before the connection opened")
            return
        }
        if let ws, let frame = ws.close(code: code, now: EventLoop.now()) { connection.write(frame) }
        connection.close(mode: .afterFlush)
    }

    /// Drops the connection now (timeouts, protocol failures).
    func abort(reason: String) {
        loop.assertOnLoop()
        if failure == nil { failure = reason }
        if let connection {
            connection.close(mode: .immediately)
        } else {
            // Still connecting: the transport's connection is not ours yet; report the end now and drop
            // whatever completes later.
            end(reason: reason)
            delegate = nil
        }
    }

    private func end(reason: String) {
        guard !ended else { return }
        ended = true
        delegate?.socket(self, didEnd: SocketEnd(wasOpen: ws != nil, closeCode: closeCode, reason: reason))
    }
}
