//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Course: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "A community's course: its lessons in order with your progress; `course C complete POST_ID` marks one done."
    )
    @OptionGroup var global: Global
    @Argument(help: "The community: #ID, ID or name.") var community: String
    @Argument(help: "complete (to mark a lesson).") var action: String?
    @Argument(help: "The lesson's post id.") var postId: String?
    @Flag(help: "With complete: mark the lesson not completed.") var undo = false
    func validate() throws {
        if let action, action != "complete" { throw ValidationError("the only action is `complete POST_ID`") }
        if action != nil, postId == nil { throw ValidationError("complete needs the lesson's POST_ID") }
    }
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            if let postId {
                try await context.completeLesson(community, post: postId, completed: !undo)
            } else {
                try await context.showCourse(community)
            }
            return .ok
        }
    }
}
