//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
import SwitchboardProtocol
import SwitchboardTransport

/// What a command runs with: the printer, the profile store, the server URL and the environment.
public struct CLIContext: Sendable {
    /// The server used when nothing else says which.
    public static let defaultServer = "ws://127.0.0.1:8080/ws"

    public let printer: Printer
    public let store: ProfileStore
    public let environment: [String: String]
    private let explicitServer: String?

    public init(options: GlobalOptions, environment: [String: String], stdoutIsTerminal: Bool) throws(CLIError) {
        self.environment = environment
        printer = Printer(
            mode: OutputMode.detect(json: options.json, stdoutIsTerminal: stdoutIsTerminal, environment: environment))
        let directory = options.configDir ?? ProfileStore.defaultDirectory(environment: environment)
        let profile =
            options.profile ?? environment["SWITCHBOARD_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        store = try ProfileStore(directory: directory, profile: profile)
        explicitServer = options.server ?? environment["SWITCHBOARD_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `--server`, else `SWITCHBOARD_URL`, else the profile's server, else the default.
    public func serverURL(for profile: Profile?) -> String {
        explicitServer ?? profile?.server ?? Self.defaultServer
    }

    /// A client for `url`: connect timeout 5 s, requests 15 s; reconnecting (unlimited for interactive commands,
    /// 3 attempts otherwise). `SWITCHBOARD_CA_FILE` names a PEM CA for `wss://` servers with a private CA.
    public func makeClient(url: String, interactive: Bool) throws(CLIError) -> SwitchboardClient {
        guard var configuration = ClientConfiguration(url: url) else {
            throw CLIError("not a ws:// or wss:// URL: \(url)", exitCode: .usage)
        }
        configuration.connectTimeout = 5
        configuration.requestTimeout = 15
        configuration.reconnect.maximumAttempts = interactive ? nil : 3
        configuration.establishBaseline = interactive
        if let caFile = environment["SWITCHBOARD_CA_FILE"], !caFile.isEmpty {
            do {
                configuration.tls = try TLSContext(clientWithCAFile: caFile, verify: true)
            } catch {
                throw CLIError("SWITCHBOARD_CA_FILE \(caFile): \(error)", exitCode: .localFile)
            }
        }
        do {
            return try SwitchboardClient(configuration: configuration)
        } catch {
            throw CLIError("cannot start the client: \(error)", exitCode: .connection)
        }
    }

    /// Loads the profile, connects and authenticates with its token.
    /// - Throws: `CLIError`: not logged in (3), cannot connect (4), the session is no longer valid (3).
    public func authenticated(interactive: Bool = false) async throws(CLIError) -> AuthenticatedSession {
        guard let profile = try store.load() else {
            throw CLIError(
                "not logged in (profile \"\(store.profile)\", no \(store.path)); "
                    + "run `switchboard-cli login --phone NUMBER` "
                    + "or `switchboard-cli register` first", exitCode: .notLoggedIn)
        }
        let url = serverURL(for: profile)
        let client = try makeClient(url: url, interactive: interactive)
        do {
            try await client.connect()
            let me = try await client.authenticate(token: profile.token)
            return AuthenticatedSession(client: client, profile: profile, me: me, url: url)
        } catch {
            await client.close()
            throw CLIError(error, while: "signing in with the saved session", server: url)
        }
    }

    /// Runs `body` with an authenticated session and closes the client afterwards.
    public func withSession<T: Sendable>(
        interactive: Bool = false, _ body: (AuthenticatedSession) async throws(CLIError) -> T
    ) async throws(CLIError) -> T {
        let session = try await authenticated(interactive: interactive)
        do {
            let result = try await body(session)
            await session.client.close()
            return result
        } catch {
            await session.client.close()
            throw error
        }
    }

    /// Maps a client error for `action` against `url`.
    public func fail(_ error: SwitchboardClientError, _ action: String, _ url: String) -> CLIError {
        CLIError(error, while: action, server: url)
    }
}
