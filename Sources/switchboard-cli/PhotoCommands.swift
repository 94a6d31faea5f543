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

// Arguments of the photo commands (the commands live in SwitchboardCLIKit's PhotoCommands.swift): `moment post`,
// `moment delete`, `moments [--more]`, `moments like ID`, `moments likers ID`, `avatar set FILE`, `avatar remove`.
// `post TEXT --photo FILE` is in CommunityCommands.swift's `post`.

struct MomentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moment",
        abstract: "Share a moment (1-9 photos and a caption) with your friends, or delete one of yours.",
        subcommands: [PostMoment.self, DeleteMoment.self])

    struct PostMoment: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "post",
            abstract: "Upload 1-9 photos (JPEG, PNG, WebP, HEIC) and share them as one moment with your friends.")
        @OptionGroup var global: Global
        @Argument(help: "The photo files, in order (1-9).") var files: [String] = []
        @Option(help: "A caption (≤ 500 characters).") var caption: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.postMoment(files: files, caption: caption)
                return .ok
            }
        }
    }

    struct DeleteMoment: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete one of your moments.")
        @OptionGroup var global: Global
        @Argument(help: "The moment's id.") var momentId: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.deleteMoment(momentId)
                return .ok
            }
        }
    }
}

struct MomentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moments",
        abstract:
            "Your and your friends' moments, newest first, 10 at a time (--more: the next page); `moments like ID [--undo]`, `moments likers ID`."
    )
    @OptionGroup var global: Global
    @Argument(help: "like, unlike or likers.") var action: String?
    @Argument(help: "The moment's id.") var momentId: String?
    @Flag(help: "The next page after the one shown last.") var more = false
    @Option(help: "Moments older than this moment id.") var before: Int64?
    @Option(help: "Moments per page (1-50; default 10).") var limit: Int?
    @Flag(help: "With like: take the like back.") var undo = false
    func validate() throws {
        if let action {
            guard ["like", "unlike", "likers"].contains(action) else {
                throw ValidationError("the actions are like, unlike and likers")
            }
            guard momentId != nil else { throw ValidationError("\(action) needs the moment's ID") }
            if more || before != nil || limit != nil {
                throw ValidationError("--more, --before and --limit are for the feed")
            }
        } else if undo {
            throw ValidationError("--undo goes with like")
        }
    }
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            switch (action, momentId) {
            case ("like", let id?): try await context.likeMoment(id, undo: undo)
            case ("unlike", let id?): try await context.likeMoment(id, undo: true)
            case ("likers", let id?): try await context.momentLikers(id)
            default: try await context.showMoments(more: more, before: before, limit: limit)
            }
            return .ok
        }
    }
}

struct AvatarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avatar", abstract: "Set your profile picture from a photo file, or remove it.",
        subcommands: [SetAvatar.self, RemoveAvatar.self])

    struct SetAvatar: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Upload a photo and make it your profile picture.")
        @OptionGroup var global: Global
        @Argument(help: "The photo file (JPEG, PNG, WebP, HEIC).") var file: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.setAvatar(file: file)
                return .ok
            }
        }
    }

    struct RemoveAvatar: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove your profile picture.")
        @OptionGroup var global: Global
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.removeAvatar()
                return .ok
            }
        }
    }
}
