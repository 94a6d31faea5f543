//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardCLIKit
import SwitchboardClient

#if canImport(Glibc)
import Glibc
#endif

// The terminal client. This target only parses arguments (one file per command); the commands live in
// SwitchboardCLIKit.

@main
struct SwitchboardCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard-cli",
        abstract: "A terminal client for Switchboard: accounts, friends, chat and calls.",
        discussion: """
            Exit codes: 0 ok, 1 the server refused, 2 usage (bad arguments, unknown friend or group), 3 not logged in \
            or session invalid, 4 cannot connect / connection lost, 5 call not answered (declined, busy, unavailable, \
            timeout, cancelled), 6 local file error, 130 interrupted twice. See docs/cli.md.
            """,
        subcommands: [
            Register.self, Verify.self, ResetPassword.self, Login.self, Logout.self, Whoami.self, Friends.self,
            Presence.self, Chat.self, Pins.self,
            Pin.self, Unpin.self, Call.self,
            Listen.self, Hangup.self, Report.self, Admin.self, Account.self,
            Communities.self, Events.self, CalendarCommand.self, Course.self, Post.self,
            Hours.self, ProfileSettings.self,
            Handle.self, Reply.self, Timeline.self, ThreadCommand.self, Follow.self, Unfollow.self, Requests.self,
            Followers.self,
            Following.self, Like.self, Repost.self, DeletePost.self, SocialNotificationsCommand.self, Block.self,
            Unblock.self, Mute.self,
            Unmute.self,
            MomentCommand.self, MomentsCommand.self, AvatarCommand.self,
        ])

    /// Parses and runs, mapping parse errors to exit code 2 (usage) and help to 0.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var async = command as? any AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
            Glibc.exit(0)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Glibc.exit(CLIExitCode.usage.rawValue)
        }
    }
}
