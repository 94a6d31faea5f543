//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser

struct Mute: RelationshipCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Mute a user: their posts leave your home timeline, no notifications from them (they are not told). Without \
            a user: the muted list.
            """
    )
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws { try await change("mute") }
}
