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

// friends, friends add/accept/decline/requests, presence.
extension CLIContext {
    /// `friends`: each friend with their presence (from `presence.snapshot`, which follows authentication).
    public func listFriends() async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let snapshot = Task { () -> [PresenceUpdate] in
                for await event in session.client.events {
                    if case .presenceSnapshot(let list) = event { return list }
                }
                return []
            }
            let friends: [UserSummary]
            do throws(SwitchboardClientError) { friends = try await session.client.friends() } catch {
                throw fail(error, "listing friends", session.url)
            }
            // The snapshot is sent right after authenticating, before the friends reply: a short wait suffices.
            let timeout = Task {
                try? await Task.sleep(nanoseconds: 2_000_000_000)
                snapshot.cancel()
            }
            let presence = await snapshot.value
            timeout.cancel()
            var status: [Int64: String] = [:]
            for p in presence { status[p.userId] = p.status }
            if friends.isEmpty {
                printer.hint("no friends yet: send a request with `switchboard-cli friends add PHONE`")
            }
            for f in friends {
                let s = status[f.userId] ?? "offline"
                printer.emit(
                    OutputRecord(
                        "friend",
                        ["user_id": .int(f.userId), "display_name": .string(f.displayName), "status": .string(s)],
                        text: "\(f.displayName)  #\(f.userId)  \(s)", style: s == "offline" ? .dim : .plain))
            }
        }
    }

    /// `friends add PHONE`.
    public func addFriend(phone: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let result: FriendsRequestResult
            do throws(SwitchboardClientError) { result = try await session.client.requestFriend(phone: phone) } catch {
                if case .server(let e) = error, e.code == "not_found" {
                    throw CLIError("nobody is registered with \(phone)", exitCode: .serverRefused, serverCode: e.code)
                }
                throw fail(error, "sending a friend request", session.url)
            }
            if let friend = result.friend {
                printer.emit(
                    OutputRecord(
                        "friend.added", ["user_id": .int(friend.userId), "name": .string(friend.displayName)],
                        text: "\(friend.displayName) and you are now friends", style: .success))
            } else if let request = result.request {
                printer.emit(
                    OutputRecord(
                        "friend.request.sent",
                        [
                            "request_id": .int(request.requestId), "user_id": .int(request.to.userId),
                            "name": .string(request.to.displayName),
                        ],
                        text: "friend request #\(request.requestId) sent to \(request.to.displayName)", style: .success)
                )
            }
        }
    }

    /// `friends accept|decline ID|PHONE|NAME`.
    public func answerFriendRequest(_ reference: String, accept: Bool) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let client = session.client
            let query = TargetQuery.classify(reference)
            let pending: FriendsRequestsResult
            var phoneMatch: Int64?
            do throws(SwitchboardClientError) {
                pending = try await client.friendRequests()
                if case .phone(let p) = query { phoneMatch = try await client.matchContacts([p]).first?.userId }
            } catch {
                throw fail(error, "reading friend requests", session.url)
            }
            let request = try TargetResolver.incomingRequest(query, incoming: pending.incoming, phoneMatch: phoneMatch)
            do throws(SwitchboardClientError) {
                if accept {
                    let friend = try await client.acceptFriendRequest(request.requestId)
                    printer.emit(
                        OutputRecord(
                            "friend.added",
                            [
                                "request_id": .int(request.requestId), "user_id": .int(friend.userId),
                                "name": .string(friend.displayName),
                            ],
                            text: "\(friend.displayName) and you are now friends", style: .success))
                } else {
                    try await client.declineFriendRequest(request.requestId)
                    printer.emit(
                        OutputRecord(
                            "friend.request.declined",
                            ["request_id": .int(request.requestId), "user_id": .int(request.from.userId)],
                            text: "declined friend request #\(request.requestId) from \(request.from.displayName)"))
                }
            } catch {
                throw fail(error, accept ? "accepting the request" : "declining the request", session.url)
            }
        }
    }

    /// `friends requests`: incoming and outgoing pending requests.
    public func listFriendRequests() async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let pending: FriendsRequestsResult
            do throws(SwitchboardClientError) { pending = try await session.client.friendRequests() } catch {
                throw fail(error, "reading friend requests", session.url)
            }
            if pending.incoming.isEmpty && pending.outgoing.isEmpty { printer.hint("no pending friend requests") }
            for r in pending.incoming {
                printer.emit(
                    OutputRecord(
                        "friend.request",
                        [
                            "direction": "incoming", "request_id": .int(r.requestId), "user_id": .int(r.from.userId),
                            "name": .string(r.from.displayName), "created_at": .string(r.createdAt),
                        ],
                        text:
                            """
                            #\(r.requestId) from \(r.from.displayName) (\(r.createdAt)): friends accept \(r.requestId)
                            """,
                        style: .incoming))
            }
            for r in pending.outgoing {
                printer.emit(
                    OutputRecord(
                        "friend.request",
                        [
                            "direction": "outgoing", "request_id": .int(r.requestId), "user_id": .int(r.to.userId),
                            "name": .string(r.to.displayName), "created_at": .string(r.createdAt),
                        ],
                        text: "#\(r.requestId) to \(r.to.displayName) (\(r.createdAt)), waiting", style: .dim))
            }
        }
    }

    /// `presence [online|away]`: without a status, friends' presence; with one, sets it for this connection.
    public func presence(_ status: Availability?) async throws(CLIError) {
        guard let status else {
            try await listFriends()
            return
        }
        try await withSession { session throws(CLIError) in
            do throws(SwitchboardClientError) { try await session.client.setPresence(status) } catch {
                throw fail(error, "setting presence", session.url)
            }
            printer.emit(
                OutputRecord(
                    "presence.set", ["status": .string(status.rawValue)], text: "presence set to \(status.rawValue)",
                    style: .success))
            printer.hint(
                """
                presence belongs to a connection: it ends with this command; use `switchboard-cli listen --presence \
                away` to stay away
                """
            )
        }
    }
}
