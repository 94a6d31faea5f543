//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardServer
import Testing

/// Issue 13, item 10: while a shutdown drains, new requests are answered 503 with Retry-After (not refused).
@Suite("Graceful shutdown drain", .serialized)
struct DrainTests {
    @Test func newRequestsDuringTheDrainGet503() throws {
        let (server, port, database) = try startProtocolServer { $0.shutdownGracePeriod = 4 }
        defer { database.close() }
        // A WebSocket that never answers the server's close frame keeps the drain going.
        let lingering = try ProtocolClient(port: port)
        let stopped = DispatchSemaphore(value: 0)
        server.shutdown { stopped.signal() }
        // The drain has begun once the server's 1001 close arrives.
        #expect(try lingering.socket.readCloseCode() == 1001)

        let ready = try TestSocket(port: port, timeout: 5)
        try ready.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        let readyResponse = try ready.readResponse()
        #expect(readyResponse.status == 503)
        #expect(header(readyResponse.head, "Retry-After") != nil)
        #expect(header(readyResponse.head, "Connection")?.lowercased() == "close")
        #expect(ready.readUntilClosed())

        let upgrade = try TestSocket(port: port, timeout: 5)
        try upgrade.send(upgradeRequest(path: "/ws", extraHeaders: "Sec-WebSocket-Protocol: switchboard.v1\r\n"))
        let upgradeResponse = try upgrade.readResponse()
        #expect(upgradeResponse.status == 503)
        #expect(header(upgradeResponse.head, "Retry-After") != nil)

        // The grace period ends the drain; then the port is closed.
        #expect(stopped.wait(timeout: .now() + 30) == .success)
        #expect((try? TestSocket(port: port, timeout: 1)) == nil)
    }
}
