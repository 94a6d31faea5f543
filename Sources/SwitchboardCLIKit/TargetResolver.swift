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

/// Resolves command-line names against the user's friends, conversations and requests (pure).
public enum TargetResolver {
    /// A name or an id that matched nothing, or several things.
    public static func notFound(_ what: String, _ text: String, candidates: [String]) -> CLIError {
        let hint = candidates.isEmpty ? "" : "; did you mean: " + candidates.prefix(5).joined(separator: ", ")
        return CLIError("no \(what) named \"\(text)\"\(hint)", exitCode: .usage)
    }

    /// A friend by display name (case-insensitive; a unique prefix also matches) or by user id (`#N`).
    public static func friend(_ query: TargetQuery, in friends: [UserSummary]) throws(CLIError) -> UserSummary {
        switch query {
        case .id(let id):
            if let f = friends.first(where: { $0.userId == id }) { return f }
            throw CLIError("user \(id) is not one of your friends", exitCode: .usage)
        case .phone(let p):
            throw CLIError("look up \(p) with contacts first", exitCode: .usage)
        case .name(let name):
            let lower = name.lowercased()
            let exact = friends.filter { $0.displayName.lowercased() == lower }
            if exact.count == 1 { return exact[0] }
            if exact.count > 1 {
                throw CLIError(
                    "several friends are named \"\(name)\" "
                        + "(user ids \(exact.map { String($0.userId) }.joined(separator: ", "))); "
                        + "use #USER_ID", exitCode: .usage)
            }
            let prefixed = friends.filter { $0.displayName.lowercased().hasPrefix(lower) }
            if prefixed.count == 1 { return prefixed[0] }
            throw notFound("friend", name, candidates: (prefixed.isEmpty ? friends : prefixed).map(\.displayName))
        }
    }

    /// A chat target from a name: a friend (exact, case-insensitive), else a group (exact), else a unique
    /// prefix of either. `#N` and short numbers are conversation ids.
    public static func chat(_ query: TargetQuery, friends: [UserSummary], conversations: [Conversation])
        throws(CLIError)
        -> ChatTarget
    {
        switch query {
        case .id(let id):
            guard conversations.contains(where: { $0.conversationId == id }) else {
                throw CLIError("no conversation \(id) of yours", exitCode: .usage)
            }
            return .conversation(id)
        case .phone(let p):
            throw CLIError("look up \(p) with contacts first", exitCode: .usage)
        case .name(let name):
            let lower = name.lowercased()
            let groups = conversations.filter { $0.kind == "group" && $0.active }
            let friendHits = friends.filter { $0.displayName.lowercased() == lower }
            let groupHits = groups.filter { $0.name.lowercased() == lower }
            if friendHits.count + groupHits.count == 1 {
                if let f = friendHits.first { return .friend(userId: f.userId, name: f.displayName) }
                return .conversation(groupHits[0].conversationId)
            }
            if friendHits.count + groupHits.count > 1 {
                let options =
                    friendHits.map { "friend #\($0.userId)" } + groupHits.map { "group #\($0.conversationId)" }
                throw CLIError(
                    "\"\(name)\" is ambiguous (\(options.joined(separator: ", "))); give the conversation id instead",
                    exitCode: .usage)
            }
            let friendPrefix = friends.filter { $0.displayName.lowercased().hasPrefix(lower) }
            let groupPrefix = groups.filter { $0.name.lowercased().hasPrefix(lower) }
            if friendPrefix.count + groupPrefix.count == 1 {
                if let f = friendPrefix.first { return .friend(userId: f.userId, name: f.displayName) }
                return .conversation(groupPrefix[0].conversationId)
            }
            throw notFound(
                "friend or group", name,
                candidates: friendPrefix.map(\.displayName) + groupPrefix.map(\.name)
                    + (friendPrefix.isEmpty && groupPrefix.isEmpty
                        ? friends.map(\.displayName) + groups.map(\.name) : []))
        }
    }

    /// An incoming friend request by request id, by the requester's user id (`phoneMatch`, looked up by the
    /// caller from a phone number) or by the requester's display name.
    public static func incomingRequest(
        _ query: TargetQuery, incoming: [PendingFriendRequest], phoneMatch: Int64?
    ) throws(CLIError) -> PendingFriendRequest {
        switch query {
        case .id(let id):
            if let r = incoming.first(where: { $0.requestId == id }) { return r }
            throw CLIError(
                "no incoming friend request #\(id) (see `switchboard-cli friends requests`)", exitCode: .usage)
        case .phone(let p):
            if let user = phoneMatch, let r = incoming.first(where: { $0.from.userId == user }) { return r }
            throw CLIError("no incoming friend request from \(p)", exitCode: .usage)
        case .name(let name):
            let hits = incoming.filter { $0.from.displayName.lowercased() == name.lowercased() }
            if hits.count == 1 { return hits[0] }
            if hits.count > 1 {
                throw CLIError("several requests come from \"\(name)\"; give the request id", exitCode: .usage)
            }
            throw notFound("incoming friend request from anyone", name, candidates: incoming.map(\.from.displayName))
        }
    }
}
