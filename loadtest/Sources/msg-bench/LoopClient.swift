//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A non-blocking protocol client on Switchboard's transport and WebSocket codec (client role), as in
// ws-bench. Everything runs on the client's loop queue; the scenario sets the callbacks.
import SwitchboardTransport
import SwitchboardWebSocket

final class LoopClient: ConnectionHandler {
    let index: Int
    let hostHeader: String
    let key = WebSocketHandshake.makeKey()
    private var parser = HTTPResponseHeadParser()
    private(set) var ws: WebSocketConnection?
    private(set) var connection: Connection?
    private var nextId = 1
    /// The WebSocket is open (after the 101).
    var onOpen: ((LoopClient) -> Void)?
    /// A complete text message.
    var onText: ((LoopClient, [UInt8]) -> Void)?
    /// The connection closed; the reason says how (close code or error).
    var onClose: ((LoopClient, String) -> Void)?
    private var closeCode: UInt16?
    private(set) var isClosed = false

    init(index: Int, hostHeader: String) {
        self.index = index
        self.hostHeader = hostHeader
    }

    func connectionDidOpen(_ connection: Connection) {
        self.connection = connection
        connection.write(
            WebSocketHandshake.clientRequest(host: hostHeader, path: "/ws", key: key, subprotocols: ["switchboard.v1"]))
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        if let ws {
            ws.receive(bytes, now: EventLoop.now()) { event in
                switch event {
                case .text(let message): onText?(self, message)
                case .binary: break
                case .send(let bytes): connection.write(bytes)
                case .closeReceived(let code, _): closeCode = code
                case .closed: connection.close(mode: .afterFlush)
                }
            }
            return
        }
        switch parser.feed(bytes) {
        case .needMoreData: return
        case .error(let e):
            fail(connection, "handshake: \(e)")
        case .head(let head, let consumed):
            guard
                case .success(let outcome) = WebSocketHandshake.validateServerResponse(
                    head, key: key, offeredSubprotocols: ["switchboard.v1"], offeredDeflate: false)
            else {
                fail(connection, "handshake status \(head.status)")
                return
            }
            ws = WebSocketConnection(
                role: .client, configuration: WebSocketConfiguration(), deflate: outcome.deflate, now: EventLoop.now())
            onOpen?(self)
            if consumed < bytes.count {
                self.connection(connection, didRead: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        }
    }

    private func fail(_ connection: Connection, _ reason: String) {
        connection.close(mode: .immediately)
        if !isClosed {
            isClosed = true
            onClose?(self, reason)
        }
    }

    /// Reports a failure once.
    func failed(_ reason: String) {
        guard !isClosed else { return }
        isClosed = true
        onClose?(self, reason)
    }

    func connectionDidClose(_ connection: Connection, error: (any Error)?) {
        guard !isClosed else { return }
        isClosed = true
        if let error {
            onClose?(self, "\(error)")
        } else {
            onClose?(self, closeCode.map { "close \($0)" } ?? "closed")
        }
    }

    /// Sends a request whose JSON body follows `"id":N,`; returns the id.
    @discardableResult
    func request(_ body: String) -> Int {
        let id = nextId
        nextId += 1
        sendText("{\"id\":\(id),\(body)}")
        return id
    }

    func sendText(_ text: String) {
        guard let ws, let connection, let frame = ws.makeMessage(.text, payload: Array(text.utf8)) else { return }
        connection.write(frame)
    }

    func close() {
        guard let ws, let connection else { return }
        if let frame = ws.close(code: 1000, now: EventLoop.now()) { connection.write(frame) }
        connection.close(mode: .afterFlush)
    }
}

extension EventLoop {
    /// Opens a client to 127.0.0.1; failures of connect go to `onClose`.
    func open(_ client: LoopClient, host: String, port: Int) {
        connect(host: host, port: port, handler: client) { result in
            if case .failure(let error) = result { client.failed("connect: \(error)") }
        }
    }
}
