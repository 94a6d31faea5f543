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

// register, verify, reset-password, login, logout, whoami: the session lives in the profile file.
extension CLIContext {
    /// The device name sent with `register`/`login`: `switchboard-cli@<host>`.
    public static func defaultDevice() -> String {
        let host = ProcessInfo.processInfo.hostName
        return String("switchboard-cli@\(host.isEmpty ? "terminal" : host)".prefix(64))
    }

    /// `register`: creates the account and saves the session.
    public func register(
        phone: String, name: String, password: String, device: String?, handle: String? = nil, code: String? = nil
    ) async throws(CLIError) {
        let handle = handle.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
        try await startSession(action: "registering", phone: phone) { client throws(SwitchboardClientError) in
            try await client.register(
                phone: phone, password: password, displayName: name, device: device ?? Self.defaultDevice(),
                handle: handle, code: code)
        }
    }

    /// `verify`: asks the server to send a one-time code to the phone, for `register --code` or `reset-password`.
    /// The server answers alike whether or not the number is registered, and sends nothing when the purpose does
    /// not fit it.
    public func requestCode(phone: String, reset: Bool) async throws(CLIError) {
        let purpose: CodePurpose = reset ? .reset : .register
        let url = serverURL(for: try? store.load())
        let client = try makeClient(url: url, interactive: false)
        do throws(SwitchboardClientError) {
            try await client.connect()
            try await client.startVerification(phone: phone, purpose: purpose)
        } catch {
            await client.close()
            throw CLIError(error, while: "requesting a code", server: url)
        }
        await client.close()
        let next = purpose == .register ? "register --code CODE" : "reset-password --code CODE"
        printer.emit(
            OutputRecord(
                "code_requested", ["phone": .string(phone), "purpose": .string(purpose.rawValue)],
                text: "code requested for \(phone): if the number can \(purpose == .register ? "sign up" : "reset"), "
                    + "an SMS is on its way; then run `switchboard-cli \(next)`",
                style: .success))
    }

    /// `reset-password`: a new password with the code sent to the phone; the account's other sessions are revoked
    /// and the new session is saved, as after `login`.
    public func resetPassword(phone: String, code: String, password: String, device: String?) async throws(CLIError) {
        try await startSession(action: "resetting the password", phone: phone) {
            client throws(SwitchboardClientError) in
            try await client.resetPassword(
                phone: phone, code: code, newPassword: password, device: device ?? Self.defaultDevice())
        }
    }

    /// `login`: logs in and saves the session (replacing the profile's previous one, which stays valid on
    /// the server until it is revoked).
    public func login(phone: String, password: String, device: String?) async throws(CLIError) {
        try await startSession(action: "logging in", phone: phone) { client throws(SwitchboardClientError) in
            try await client.login(phone: phone, password: password, device: device ?? Self.defaultDevice())
        }
    }

    private func startSession(
        action: String, phone: String,
        _ body: (SwitchboardClient) async throws(SwitchboardClientError) -> SessionCredentials
    ) async throws(CLIError) {
        let previous = try? store.load()
        let url = serverURL(for: previous)
        let client = try makeClient(url: url, interactive: false)
        let credentials: SessionCredentials
        let profileResult: UserProfile
        do throws(SwitchboardClientError) {
            try await client.connect()
            credentials = try await body(client)
            profileResult = try await client.profile()
        } catch {
            await client.close()
            throw CLIError(error, while: action, server: url)
        }
        await client.close()
        let saved = Profile(
            server: url, token: credentials.sessionToken, userId: credentials.userId, sessionId: credentials.sessionId,
            phone: profileResult.phone ?? phone, displayName: profileResult.displayName)
        try store.save(saved)
        if let previous, previous.token != saved.token {
            printer.warning(
                "replaced the saved session of profile \"\(store.profile)\" (user \(previous.userId)); "
                    + "it stays valid on the "
                    + "server until revoked (`logout` revokes the current one)")
        }
        let kind = ["registering": "registered", "resetting the password": "password_reset"][action] ?? "logged_in"
        let done = ["registering": "registered", "resetting the password": "password reset; logged in"][action]
        printer.emit(
            OutputRecord(
                kind,
                [
                    "user_id": .int(saved.userId), "session_id": .int(saved.sessionId),
                    "display_name": .string(profileResult.displayName),
                    "phone": .string(saved.phone ?? phone), "server": .string(url), "profile": .string(store.profile),
                    "config_file": .string(store.path),
                ],
                text: "\(done ?? "logged in") as \(profileResult.displayName) "
                    + "(user \(saved.userId), \(saved.phone ?? phone)) on \(url); session saved in \(store.path)",
                style: .success))
    }

    /// `logout`: revokes the session on the server and deletes the profile's files. A session the server no
    /// longer knows is deleted locally too.
    public func logout() async throws(CLIError) {
        guard let profile = try store.load() else {
            throw CLIError("not logged in (profile \"\(store.profile)\", no \(store.path))", exitCode: .notLoggedIn)
        }
        let url = serverURL(for: profile)
        let client = try makeClient(url: url, interactive: false)
        var note = "session revoked on the server"
        do throws(SwitchboardClientError) {
            try await client.connect()
            try await client.authenticate(token: profile.token)
            try await client.logout()
        } catch .server(let e) where e.code == "invalid_token" {
            note = "the server no longer knew the session"
        } catch {
            await client.close()
            throw CLIError(error, while: "logging out", server: url)
        }
        await client.close()
        try store.delete()
        printer.emit(
            OutputRecord(
                "logged_out", ["user_id": .int(profile.userId), "profile": .string(store.profile)],
                text: "logged out (\(note)); deleted \(store.path)", style: .success))
    }

    /// `whoami`: the profile as the server sees it.
    public func whoami() async throws(CLIError) {
        let session = try await authenticated()
        await session.client.close()
        let p = session.me.profile
        printer.emit(
            OutputRecord(
                "whoami",
                [
                    "user_id": .int(p.userId), "display_name": .string(p.displayName),
                    "phone": p.phone.map { .string($0) } ?? .null,
                    "session_id": .int(session.me.sessionId), "server": .string(session.url),
                    "profile": .string(store.profile),
                ],
                text:
                    """
                    \(p.displayName) (user \(p.userId), \(p.phone ?? "no phone")), session \(session.me.sessionId) on \
                    \(session.url)
                    """
                        + " [profile \(store.profile)]"))
    }
}
