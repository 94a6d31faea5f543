//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit
import SwitchboardClient

// Arguments of the social commands (the commands live in SwitchboardCLIKit's SocialCommands.swift). A user is
// `@handle` or a user id; a post is its id. `post` and `profile` are shared with older commands: `post TEXT` is a
// social post and `post C TITLE` a community announcement; `profile [@h]` shows a profile and `profile set` edits
// yours.

struct Handle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Choose or change your handle (@name: 3-30 of A-Z a-z 0-9 _); --check only asks if it is free.")
    @OptionGroup var global: Global
    @Argument(help: "The handle, with or without @.") var name: String
    @Flag(help: "Only check whether it is available.") var check = false
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            if check { try await context.checkHandle(name) } else { try await context.setHandle(name) }
            return .ok
        }
    }
}

struct ProfileShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "A profile: handle, bio, stats and how you relate (default: yours).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.showSocialProfile(user)
            return .ok
        }
    }
}

struct Reply: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Reply to a post (joins its thread).")
    @OptionGroup var global: Global
    @Argument(help: "The post replied to.") var postId: String
    @Argument(help: "The text (≤ 280 characters).") var text: String
    @Option(help: "A voice recording to attach (WAV, Ogg/Opus or WebM).") var voice: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.publishPost(text, replyTo: postId, voiceFile: voice)
            return .ok
        }
    }
}

struct Timeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "A timeline, newest first: home (default), @handle, mentions, likes [@handle], #tag; --follow keeps printing new posts until Ctrl-C."
    )
    @OptionGroup var global: Global
    @Argument(help: "home, @handle, mentions, likes [@handle] or #tag.") var which: [String] = []
    @Option(help: "Posts older than this seq (a likes page: like id), as the previous page's hint shows.") var before:
        Int64?
    @Option(help: "Posts per page (1-100).") var limit: Int?
    @Flag(help: "A user's page with replies.") var replies = false
    @Flag(help: "Keep printing new posts, deletions and counts (home, @handle, mentions) until Ctrl-C.") var follow =
        false
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.timeline(
                TimelineKind.parse(which), before: before, limit: limit, replies: replies, follow: follow)
        }
    }
}

struct ThreadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thread", abstract: "A post's thread: its ancestors, the post, its direct replies (oldest first).")
    @OptionGroup var global: Global
    @Argument(help: "The post.") var postId: String
    @Option(help: "Replies after this seq (the previous page's hint).") var after: Int64?
    @Option(help: "Replies per page (1-100).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.showThread(postId, after: after, limit: limit)
            return .ok
        }
    }
}

struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow a user (a protected account gets a request to approve).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.followUser(user)
            return .ok
        }
    }
}

struct Unfollow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop following a user (or withdraw a request).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.unfollowUser(user)
            return .ok
        }
    }
}

struct Requests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow requests to your protected account; approve or deny one.")
    @OptionGroup var global: Global
    @Argument(help: "approve or deny.") var action: String?
    @Argument(help: "@handle or a user id of the requester.") var user: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.followRequests(action: action, target: user)
            return .ok
        }
    }
}

struct Followers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A user's followers, newest first (default: yours).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    @Option(help: "The page after this cursor (the previous page's hint).") var before: Int64?
    @Option(help: "Users per page (1-100).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.followList(followers: true, target: user, before: before, limit: limit)
            return .ok
        }
    }
}

struct Following: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Who a user follows, newest first (default: you).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    @Option(help: "The page after this cursor (the previous page's hint).") var before: Int64?
    @Option(help: "Users per page (1-100).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.followList(followers: false, target: user, before: before, limit: limit)
            return .ok
        }
    }
}

struct Like: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Like a post (--undo: unlike).")
    @OptionGroup var global: Global
    @Argument(help: "The post.") var postId: String
    @Flag(help: "Unlike.") var undo = false
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.likePost(postId, undo: undo)
            return .ok
        }
    }
}

struct Repost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Repost a post to your followers (--undo: take it back).")
    @OptionGroup var global: Global
    @Argument(help: "The post (the original).") var postId: String
    @Flag(help: "Undo the repost.") var undo = false
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.repostPost(postId, undo: undo)
            return .ok
        }
    }
}

struct DeletePost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-post", abstract: "Delete your post or repost (administrators: any).")
    @OptionGroup var global: Global
    @Argument(help: "The post.") var postId: String
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.deleteSocialPost(postId)
            return .ok
        }
    }
}

struct SocialNotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract:
            "Social notifications, grouped (likes and reposts per post, follows together); --read marks them read.")
    @OptionGroup var global: Global
    @Flag(help: "Mark every notification read.") var read = false
    @Option(help: "Older than this notification id (the previous page's hint).") var before: Int64?
    @Option(help: "Groups per page (1-50).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.socialNotifications(read: read, before: before, limit: limit)
            return .ok
        }
    }
}

/// `block`, `unblock`, `mute`, `unmute`: one shape.
protocol RelationshipCommand: AsyncParsableCommand {
    var global: Global { get }
    var user: String? { get }
}

extension RelationshipCommand {
    /// `action @h`; without a user, `block` and `mute` list the users blocked or muted.
    func change(_ action: String) async throws {
        try await perform(global) { context throws(CLIError) in
            if let user {
                try await context.relationship(action, user)
            } else if action == "block" || action == "mute" {
                try await context.listRelationship(blocks: action == "block")
            } else {
                throw CLIError("\(action) @handle", exitCode: .usage)
            }
            return .ok
        }
    }
}

struct Block: RelationshipCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Block a user: no follows either way; they cannot see your posts, mention-notify or message you. Without a user: the blocked list."
    )
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws { try await change("block") }
}

struct Unblock: RelationshipCommand {
    static let configuration = CommandConfiguration(abstract: "Unblock a user.")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws { try await change("unblock") }
}

struct Mute: RelationshipCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Mute a user: their posts leave your home timeline, no notifications from them (they are not told). Without a user: the muted list."
    )
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws { try await change("mute") }
}

struct Unmute: RelationshipCommand {
    static let configuration = CommandConfiguration(abstract: "Unmute a user.")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws { try await change("unmute") }
}
