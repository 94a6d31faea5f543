//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardTransport

/// `switchboard healthcheck`: asks a running server's `/healthz` on 127.0.0.1 (for Docker's HEALTHCHECK).
struct HealthCheck: ParsableCommand {
    // The name the image's HEALTHCHECK, the compose files and the docs use (ArgumentParser would name it
    // `health-check`, which none of them called: every container health check failed).
    static let configuration = CommandConfiguration(
        commandName: "healthcheck", abstract: "Exit 0 if the local server answers /healthz with 200.")

    @Option(help: "Port of the local server. [env: SWITCHBOARD_PORT]")
    var port: Int = envValue("SWITCHBOARD_PORT", as: Int.self) ?? 8080

    @Option(help: "Path to ask.")
    var path: String = "/healthz"

    func run() throws {
        guard
            BlockingHTTP.get(address: "127.0.0.1", port: port, path: path, timeoutSeconds: 3, maxBytes: 4096)?.status
                == 200
        else { throw ExitCode(1) }
    }
}
