//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

/// Account deletion and data export (docs/protocol.md, "Account deletion and export").
extension SwitchboardClient {
    /// `account.delete {password}`: deletes the account; the server then sends `account.deleted` and closes with 4005.
    public func deleteAccount(password: String) async throws(SwitchboardClientError) {
        try await send(Ops.AccountDelete.self, .init(password: password), resendable: false)
    }

    /// `account.export`: starts an export (`state` building); `account.export_ready` follows.
    public func requestExport() async throws(SwitchboardClientError) -> DataExportInfo {
        try await send(Ops.AccountExport.self, Empty(), resendable: false).export
    }

    /// `account.exports`: the user's exports, newest first.
    public func exports() async throws(SwitchboardClientError) -> [DataExportInfo] {
        try await send(Ops.AccountExports.self, Empty()).exports
    }

    /// `GET /export/{id}` with the session's token: the archive (.tar.gz).
    /// - Throws: `.server(ServerError)`: `not_found` (404: not yours, unknown, failed or expired), `invalid_token`
    ///   (401).
    public func downloadExport(_ exportId: Int64, maxBytes: Int = 1 << 30, timeout: Double? = nil)
        async throws(SwitchboardClientError) -> [UInt8]
    {
        guard let token = await sessionToken else {
            throw .server(ServerError(code: "not_authenticated", message: "downloads need a session: log in first"))
        }
        let endpoint = await currentEndpoint
        let path = "/export/\(exportId)"
        let request = HTTPExchange.makeRequest(
            method: "GET", path: path, hostHeader: endpoint.hostHeader, headers: [("Authorization", "Bearer \(token)")],
            body: [])
        let exchange = HTTPExchange(loop: loop, request: request, maxBodyBytes: maxBytes, what: "GET \(path)")
        let response = try await exchange.run(
            endpoint: endpoint, tls: try Self.resolvedTLS(endpoint, configuration.tls),
            serverName: configuration.serverName ?? Self.defaultServerName(endpoint),
            timeout: timeout ?? max(60, configuration.requestTimeout))
        guard response.status == 200 else { throw Self.httpError(response, op: "GET \(path)") }
        return response.body
    }
}
