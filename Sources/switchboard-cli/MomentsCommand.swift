//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct MomentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moments",
        abstract:
            """
            Your and your friends' moments, newest first, 10 at a time (--more: the next page); `moments like ID \
            [--undo]`, `moments likers ID`.
            """
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
