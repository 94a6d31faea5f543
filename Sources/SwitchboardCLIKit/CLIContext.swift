//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
public import SwitchboardProtocol
import SwitchboardTransport

/// The options every command shares.
public struct GlobalOptions: Sendable {
    /// `--server URL` (nil: `SWITCHBOARD_URL`, else the profile's, else `ws://127.0.0.1:8080/ws`).
    public var server: String?
    /// `--config-dir DIR` (nil: see `ProfileStore.defaultDirectory`).
    public var configDir: String?
    /// `--profile NAME` (nil: `SWITCHBOARD_PROFILE`, else `default`).
    public var profile: String?
    /// `--json`.
    public var json: Bool

    public init(server: String? = nil, configDir: String? = nil, profile: String? = nil, json: Bool = false) {
        self.server = server
        self.configDir = configDir
        self.profile = profile
        self.json = json
    }
}

/// An authenticated connection for one command.
public struct AuthenticatedSession: Sendable {
    public let client: SwitchboardClient
    public let profile: Profile
    public let me: AuthenticateResult
    /// The server URL in use.
    public let url: String
}

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
                "not logged in (profile \"\(store.profile)\", no \(store.path)); run `switchboard-cli login --phone NUMBER` "
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

/// What an interactive session reacts to, merged into one stream: client events, input lines, Ctrl-C and
/// the results of requests it started in the background.
public enum SessionInput: Sendable {
    case event(ClientEvent)
    /// The client's event stream finished (the client closed).
    case eventsEnded
    case line(String)
    case endOfInput
    case interrupt
    /// A line to print that a background task produced.
    case record(OutputRecord)
    /// A background request finished (`true`: it succeeded).
    case requestFinished(tag: String, ok: Bool)
    /// A timer the session set.
    case deadline(tag: String)
    /// The call's media engine reported something (`CallMedia`).
    case media(MediaEvent)
}

extension SessionInput {
    /// What every interactive session (chat, call, listen) does with the inputs it does not handle itself: a
    /// connection that ended for good, or an event stream that finished, ends the session with its exit code;
    /// any other client event is printed.
    /// - Returns: the exit code to end the session with, or nil to go on.
    public func handleAsOther(names: NameBook, printer: Printer) -> CLIExitCode? {
        switch self {
        case .event(.state(.closed(let reason))):
            printer.error("the connection ended: \(reason)")
            return reason == .sessionRevoked ? .notLoggedIn : .connection
        case .event(let other):
            if let r = EventFormatter.event(other, names: names) { printer.emit(r) }
            return nil
        case .eventsEnded:
            return .connection
        default:
            return nil
        }
    }
}

/// The merged input of an interactive session: the client's events, stdin lines (read on a thread), and
/// Ctrl-C/SIGTERM. Keep it for the session's lifetime (it holds the signal sources).
///
/// Concurrency: a session's state (the call, pending sends, the oldest seq shown) lives in local variables of
/// the one task that consumes `stream`; the tasks it starts for requests never touch that state, they report
/// back through `continuation` (`.record`, `.requestFinished`). The client's own state stays on its loop
/// queue (docs/client.md).
public final class SessionInputs: Sendable {
    public let stream: AsyncStream<SessionInput>
    public let continuation: AsyncStream<SessionInput>.Continuation
    private let interrupts: InterruptHandler

    public init(client: SwitchboardClient, readInput: Bool = true) {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionInput.self, bufferingPolicy: .unbounded)
        self.stream = stream
        self.continuation = continuation
        interrupts = InterruptHandler { continuation.yield(.interrupt) }
        Task {
            for await event in client.events { continuation.yield(.event(event)) }
            continuation.yield(.eventsEnded)
        }
        if readInput {
            Terminal.readLines { line in continuation.yield(line.map(SessionInput.line) ?? .endOfInput) }
        }
    }

    /// Yields `.deadline(tag)` after `seconds`.
    public func schedule(_ tag: String, after seconds: Double) {
        let continuation = self.continuation
        Task {
            try? await Task.sleep(nanoseconds: UInt64(max(seconds, 0) * 1e9))
            continuation.yield(.deadline(tag: tag))
        }
    }
}
