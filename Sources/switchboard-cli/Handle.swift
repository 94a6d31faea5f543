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
