//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardClient

/// An error shown to the user on stderr, with the exit code it leads to.
public struct CLIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What to tell the user (one line, no "error:" prefix).
    public var message: String
    /// The process's exit code.
    public var exitCode: CLIExitCode
    /// The server's error code, when the server refused.
    public var serverCode: String?

    public init(_ message: String, exitCode: CLIExitCode, serverCode: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.serverCode = serverCode
    }

    public var description: String { message }

    /// Translates a client error into what the user sees and the exit code.
    /// - Parameters:
    ///   - error: the library's error.
    ///   - action: what was being done, in words (`logging in`).
    ///   - server: the server URL, for connection errors.
    public init(_ error: SwitchboardClientError, while action: String, server: String) {
        switch error {
        case .server(let e):
            switch e.code {
            case "invalid_token", "not_authenticated":
                self.init(
                    "\(action): the saved session is no longer valid (logged out or revoked); log in again with "
                        + "`switchboard-cli login`", exitCode: .notLoggedIn, serverCode: e.code)
            case "invalid_credentials":
                self.init("\(action): wrong phone number or password", exitCode: .serverRefused, serverCode: e.code)
            case "rate_limited":
                let wait = e.retryAfterMs.map { " (retry in \(($0 + 999) / 1000) s)" } ?? ""
                self.init("\(action): too many attempts\(wait)", exitCode: .serverRefused, serverCode: e.code)
            case "invalid_code":
                self.init(
                    "\(action): no valid code for this number (wrong, expired or used up); ask for one with "
                        + "`switchboard-cli verify --phone NUMBER` and pass it with --code",
                    exitCode: .serverRefused, serverCode: e.code)
            case "weak_password":
                self.init(
                    "\(action): the password is too weak" + (e.reason.map { " (\($0))" } ?? ""),
                    exitCode: .serverRefused,
                    serverCode: e.code)
            default:
                self.init(
                    "\(action): the server refused: \(e.message) [\(e.code)]", exitCode: .serverRefused,
                    serverCode: e.code)
            }
        case .timeout(let op):
            self.init("\(action): no reply from \(server) in time (\(op))", exitCode: .connection)
        case .connectionLost(let op):
            self.init("\(action): the connection to \(server) was lost during \(op)", exitCode: .connection)
        case .connectFailed(let why):
            self.init("\(action): cannot connect to \(server): \(why)", exitCode: .connection)
        case .closed(.sessionRevoked):
            self.init(
                "\(action): the session was revoked; log in again", exitCode: .notLoggedIn, serverCode: "invalid_token")
        case .closed(.accountSuspended):
            self.init("\(action): this account is suspended", exitCode: .serverRefused, serverCode: "account_suspended")
        case .closed(let reason):
            self.init("\(action): the connection to \(server) ended (\(reason))", exitCode: .connection)
        case .tooManyQueuedRequests:
            self.init("\(action): too many requests wait for the connection to \(server)", exitCode: .connection)
        case .invalidMessage(let why):
            self.init("\(action): unexpected reply from the server: \(why)", exitCode: .serverRefused)
        case .cancelled:
            self.init("\(action): cancelled", exitCode: .interrupted)
        }
    }
}
