//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardTransport

/// One server, token and loop for a photo upload's exchanges (each on a connection of its own).
struct PhotoHTTP: Sendable {
    let endpoint: ServerEndpoint
    let token: String
    let tls: TLSContext?
    let serverName: String?
    let loop: EventLoop
    let timeout: Double

    func run(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]
    ) async throws(SwitchboardClientError) -> HTTPExchangeResponse {
        let request = HTTPExchange.makeRequest(
            method: method, path: path, hostHeader: endpoint.hostHeader,
            headers: [("Authorization", "Bearer \(token)")] + headers, body: body)
        let exchange = HTTPExchange(loop: loop, request: request, maxBodyBytes: 64 << 10, what: "\(method) \(path)")
        return try await exchange.run(endpoint: endpoint, tls: tls, serverName: serverName, timeout: timeout)
    }
}
