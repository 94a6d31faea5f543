//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Dispatch
import Foundation
import Histogram
import SwitchboardTransport
import SwitchboardWebSocket
final class BenchClient: ConnectionHandler {
    let stats: LoopStats
    let payload: [UInt8]
    let text: Bool
    let pipeline: Int
    let key = WebSocketHandshake.makeKey()
    let host: String
    let path: String
    let subprotocols: [String]
    var parser = HTTPResponseHeadParser()
    var ws: WebSocketConnection?
    var sentAt: [UInt64] = []
    var measuring: @Sendable () -> Bool
    var running: @Sendable () -> Bool

    init(
        stats: LoopStats, payload: [UInt8], text: Bool, pipeline: Int, host: String, path: String,
        subprotocols: [String],
        measuring: @escaping @Sendable () -> Bool, running: @escaping @Sendable () -> Bool
    ) {
        self.stats = stats
        self.payload = payload
        self.text = text
        self.pipeline = pipeline
        self.host = host
        self.path = path
        self.subprotocols = subprotocols
        self.measuring = measuring
        self.running = running
    }

    func connectionDidOpen(_ connection: Connection) {
        connection.write(WebSocketHandshake.clientRequest(host: host, path: path, key: key, subprotocols: subprotocols))
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        if let ws {
            ws.receive(bytes, now: EventLoop.now()) { event in
                switch event {
                case .binary, .text:
                    let now = EventLoop.now()
                    if !sentAt.isEmpty {
                        let start = sentAt.removeFirst()
                        if measuring() {
                            _ = stats.histogram.record(now - start)
                            stats.roundTrips += 1
                        }
                    }
                    if running() { send(connection) }
                case .send(let bytes): connection.write(bytes)
                case .closed: connection.close(mode: .afterFlush)
                case .closeReceived: break
                }
            }
            return
        }
        switch parser.feed(bytes) {
        case .needMoreData: return
        case .error:
            stats.errors += 1
            connection.close(mode: .immediately)
        case .head(let head, let consumed):
            guard
                case .success(let outcome) = WebSocketHandshake.validateServerResponse(
                    head, key: key, offeredSubprotocols: subprotocols, offeredDeflate: false)
            else {
                stats.errors += 1
                connection.close(mode: .immediately)
                return
            }
            let socket = WebSocketConnection(
                role: .client, configuration: WebSocketConfiguration(), deflate: outcome.deflate, now: EventLoop.now())
            ws = socket
            stats.open += 1
            for _ in 0..<pipeline { send(connection) }
            if consumed < bytes.count {
                self.connection(connection, didRead: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        }
    }

    func send(_ connection: Connection) {
        guard let ws, let frame = ws.makeMessage(text ? .text : .binary, payload: payload) else { return }
        sentAt.append(EventLoop.now())
        connection.write(frame)
    }

    func connectionDidClose(_ connection: Connection, error: (any Error)?) {
        if running() { stats.errors += 1 }
    }
}
