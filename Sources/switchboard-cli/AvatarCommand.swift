//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

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
