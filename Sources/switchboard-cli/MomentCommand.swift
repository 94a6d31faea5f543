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
// `post TEXT --photo FILE` is in Post.swift.

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
