//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

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
