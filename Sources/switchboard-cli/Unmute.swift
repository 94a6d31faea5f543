//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser

struct Unmute: RelationshipCommand {
    static let configuration = CommandConfiguration(abstract: "Unmute a user.")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws { try await change("unmute") }
}
