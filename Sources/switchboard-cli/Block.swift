//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser

struct Block: RelationshipCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Block a user: no follows either way; they cannot see your posts, mention-notify or message you. Without a \
            user: the blocked list.
            """
    )
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws { try await change("block") }
}
