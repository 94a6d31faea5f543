//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol

// account delete, account export (docs/cli.md, "Account deletion and export").
extension CLIContext {
    /// `account delete`: deletes the account on the server (the password entered again), then the profile's files.
    public func deleteAccount(password: String) async throws(CLIError) {
        let session = try await authenticated()
        do throws(SwitchboardClientError) {
            try await session.client.deleteAccount(password: password)
        } catch {
            await session.client.close()
            throw CLIError(error, while: "deleting the account", server: session.url)
        }
        await session.client.close()
        try store.delete()
        let me = session.me.profile
        printer.emit(
            OutputRecord(
                "account_deleted", ["user_id": .int(me.userId), "profile": .string(store.profile)],
                text:
                    """
                    account deleted (user \(me.userId)): your messages show as a deleted account's; deleted \
                    \(store.path)
                    """,
                style: .success))
    }

    /// `account export`: asks for an export, waits until it is built (at most `timeout` seconds), downloads it to
    /// `to` (default `switchboard-export-<id>.tar.gz` in the working folder).
    public func exportAccount(to path: String?, timeout: Double) async throws(CLIError) {
        let session = try await authenticated()
        let client = session.client
        var finished: DataExportInfo
        do throws(SwitchboardClientError) {
            finished = try await client.requestExport()
        } catch {
            await client.close()
            throw CLIError(error, while: "exporting the account's data", server: session.url)
        }
        printer.hint("export \(finished.exportId) requested; waiting for the server to build it")
        let deadline = Date().addingTimeInterval(timeout)
        while finished.state == "building" {
            guard Date() < deadline else {
                await client.close()
                throw CLIError(
                    "the export was not ready within \(Int(timeout)) s; run `account export` later",
                    exitCode: .serverRefused)
            }
            try? await Task.sleep(nanoseconds: 500_000_000)
            do throws(SwitchboardClientError) {
                let id = finished.exportId
                finished = try await client.exports().first { $0.exportId == id } ?? finished
            } catch {
                await client.close()
                throw CLIError(error, while: "exporting the account's data", server: session.url)
            }
        }
        guard finished.state == "ready" else {
            await client.close()
            throw CLIError("the export failed (\(finished.error ?? finished.state))", exitCode: .serverRefused)
        }
        let bytes: [UInt8]
        do throws(SwitchboardClientError) {
            bytes = try await client.downloadExport(finished.exportId)
        } catch {
            await client.close()
            throw CLIError(error, while: "downloading the export", server: session.url)
        }
        await client.close()
        let file = path ?? "switchboard-export-\(finished.exportId).tar.gz"
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: file))
        } catch {
            throw CLIError("cannot write \(file): \(error.localizedDescription)", exitCode: .localFile)
        }
        printer.emit(
            OutputRecord(
                "export_downloaded",
                [
                    "export_id": .int(finished.exportId), "file": .string(file), "bytes": .int(Int64(bytes.count)),
                    "expires_at": finished.expiresAt.map { .string($0) } ?? .null,
                ],
                text: "saved your data (export \(finished.exportId), \(bytes.count) bytes) to \(file)", style: .success)
        )
    }
}
