//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardClient
import Testing

/// The client library's report methods (`SwitchboardClient+Moderation.swift`) against a real server.
@Suite("Client library: reports", .serialized)
struct ClientModerationTests {
    /// The server error code a call threw, or nil when it did not throw one.
    func code(_ body: () async throws(SwitchboardClientError) -> Int64) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch {
            if case .server(let e) = error { return e.code }
            return "\(error)"
        }
    }

    @Test func reportAMessageAndAUser() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let cat = try makeClient(port: port)
        let annUser = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        _ = try await registerUser(cat, "Cat")
        try await befriend(ann, bob, bobUser)
        let ack = try await ann.sendText("buy now", to: .user(bobUser.id), clientId: "r-1")

        let report = try await bob.report(message: ack.messageId, reason: "spam", text: "ads")
        // The same target again while the report is open: the same report.
        #expect(try await bob.report(message: ack.messageId, reason: "spam") == report)
        let userReport = try await bob.report(user: annUser.id, reason: "harassment")
        #expect(userReport != report)
        // A stranger sees neither the message nor the user: one answer.
        #expect(
            await code { () async throws(SwitchboardClientError) -> Int64 in
                try await cat.report(message: ack.messageId, reason: "spam")
            } == "not_found")
        #expect(
            await code { () async throws(SwitchboardClientError) -> Int64 in
                try await cat.report(user: annUser.id, reason: "spam")
            } == "not_found")
        #expect(
            await code { () async throws(SwitchboardClientError) -> Int64 in
                try await bob.report(message: ack.messageId, reason: "boring")
            } == "bad_request")
        for client in [ann, bob, cat] { await client.close() }
    }
}
