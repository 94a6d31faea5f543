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

// The terminal client. This file only parses arguments; the commands live in SwitchboardCLIKit.

struct Global: ParsableArguments {
    @Option(help: "Server URL (env SWITCHBOARD_URL; default: the profile's, else ws://127.0.0.1:8080/ws).")
    var server: String?

    @Option(
        help:
            "Config folder (env SWITCHBOARD_CONFIG_DIR; default $XDG_CONFIG_HOME/switchboard or ~/.config/switchboard)."
    )
    var configDir: String?

    @Option(help: "Profile name: one saved session per profile (env SWITCHBOARD_PROFILE; default: default).")
    var profile: String?

    @Flag(help: "Print one JSON object per line instead of text.")
    var json = false

    func context() throws(CLIError) -> CLIContext {
        try CLIContext(
            options: GlobalOptions(server: server, configDir: configDir, profile: profile, json: json),
            environment: ProcessInfo.processInfo.environment, stdoutIsTerminal: Terminal.stdoutIsTerminal)
    }
}

/// Runs a command body and turns a `CLIError` into its message on stderr and its exit code.
func perform(_ global: Global, _ body: (CLIContext) async throws(CLIError) -> CLIExitCode) async throws {
    let code: CLIExitCode
    do {
        let context = try global.context()
        do {
            code = try await body(context)
        } catch {
            context.printer.error(error.message)
            code = error.exitCode
        }
    } catch {
        Printer(mode: .human(color: false)).error(error.message)
        code = error.exitCode
    }
    if code != .ok { throw ExitCode(code.rawValue) }
}

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
            Register.self, Login.self, Logout.self, Whoami.self, Friends.self, Presence.self, Chat.self, Pins.self,
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

struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create an account and save its session.")
    @OptionGroup var global: Global
    @Option(help: "Phone number (E.164, e.g. +15551234567).") var phone: String
    @Option(help: "Display name.") var name: String
    @Flag(help: "Read the password from the first line of stdin (else env SWITCHBOARD_PASSWORD, else a prompt).")
    var passwordStdin = false
    @Option(help: "Device name shown in the session list.") var device: String?
    @Option(help: "A social handle to take at once (@name: 3-30 of A-Z a-z 0-9 _; taken: nothing is made).") var handle:
        String?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            let password = try Terminal.readPassword(
                fromStdin: passwordStdin, environment: context.environment, confirm: true)
            try await context.register(phone: phone, name: name, password: password, device: device, handle: handle)
            return .ok
        }
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log in and save the session in the profile.")
    @OptionGroup var global: Global
    @Option(help: "Phone number.") var phone: String
    @Flag(help: "Read the password from the first line of stdin (else env SWITCHBOARD_PASSWORD, else a prompt).")
    var passwordStdin = false
    @Option(help: "Device name shown in the session list.") var device: String?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            let password = try Terminal.readPassword(
                fromStdin: passwordStdin, environment: context.environment, confirm: false)
            try await context.login(phone: phone, password: password, device: device)
            return .ok
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Revoke the session on the server and delete the profile's files.")
    @OptionGroup var global: Global

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.logout()
            return .ok
        }
    }
}

struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show who the saved session belongs to.")
    @OptionGroup var global: Global

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.whoami()
            return .ok
        }
    }
}

struct Friends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List friends with their presence, or manage friend requests.",
        subcommands: [List.self, Add.self, Accept.self, Decline.self, Requests.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Friends and their presence (default).")
        @OptionGroup var global: Global
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listFriends()
                return .ok
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a friend request to a phone number.")
        @OptionGroup var global: Global
        @Argument(help: "Phone number.") var phone: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.addFriend(phone: phone)
                return .ok
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept an incoming friend request.")
        @OptionGroup var global: Global
        @Argument(help: "Request id, the requester's phone number or display name.") var request: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.answerFriendRequest(request, accept: true)
                return .ok
            }
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decline an incoming friend request.")
        @OptionGroup var global: Global
        @Argument(help: "Request id, the requester's phone number or display name.") var request: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.answerFriendRequest(request, accept: false)
                return .ok
            }
        }
    }

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pending friend requests, incoming and outgoing.")
        @OptionGroup var global: Global
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listFriendRequests()
                return .ok
            }
        }
    }
}

struct Presence: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Without a status: friends' presence. With one: set it (for this command's connection).")
    @OptionGroup var global: Global
    @Argument(help: "online or away.") var status: String?

    func validate() throws {
        if let status, Availability(rawValue: status) == nil { throw ValidationError("status must be online or away") }
    }

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.presence(status.flatMap(Availability.init(rawValue:)))
            return .ok
        }
    }
}

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat with a friend or a group: history, live messages, /more, /voice FILE, /quit.")
    @OptionGroup var global: Global
    @Argument(help: "A friend's name or phone number, a group's name, or a conversation id (#N).") var target: String

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await ChatSession(context: context, target: target).run()
        }
    }
}

/// The media options of `call` and `listen` (docs/cli.md, "Media").
struct MediaArguments: ParsableArguments {
    @Flag(help: "Signalling only: a generated SDP and candidates, no audio or video (env SWITCHBOARD_NO_MEDIA=1).")
    var noMedia = false
    @Option(help: "Send a sine tone of this frequency in Hz (the default audio: 440).") var tone: Double?
    @Option(help: "Send audio from this file (WAV, Ogg Opus/Vorbis, FLAC, ...; at most 10 minutes).") var play: String?
    @Flag(help: "Repeat the --play file (else silence after it).") var loop = false
    @Flag(help: "Send the default microphone.") var mic = false
    @Option(help: "Send video from this file instead of the test pattern (video calls).") var videoFile: String?
    @Option(help: "Record the received audio: .wav decoded, else Ogg/Opus as received.") var record: String?
    @Option(help: "Record the received video as WebM (VP8 as received).") var recordVideo: String?
    @Flag(help: "Use TURN relays only (the hub's call.turn credentials).") var relayOnly = false
    @Option(help: "Hang up this many seconds after media starts flowing.") var hangupAfter: Double?
    @Option(help: "Seconds between two quality lines.") var statsInterval: Double = 1
    @Option(
        help:
            "Gather host candidates only on this local IP address (repeatable; loopback allowed; default: every interface but loopback)."
    )
    var iceAddress: [String] = []

    func validate() throws {
        let sources = (tone != nil ? 1 : 0) + (play != nil ? 1 : 0) + (mic ? 1 : 0)
        if sources > 1 { throw ValidationError("--tone, --play and --mic exclude each other") }
        if let tone, !(tone >= 20 && tone <= 20000) { throw ValidationError("--tone must be 20-20000 Hz") }
        if loop && play == nil { throw ValidationError("--loop needs --play") }
        if let hangupAfter, !(hangupAfter > 0 && hangupAfter <= 86400) {
            throw ValidationError("--hangup-after must be 0-86400 s")
        }
        if !(statsInterval >= 0.2 && statsInterval <= 3600) {
            throw ValidationError("--stats-interval must be 0.2-3600 s")
        }
        for address in iceAddress where address.isEmpty || address.contains(" ") {
            throw ValidationError("--ice-address takes one IP address")
        }
        if noMedia
            && (sources > 0 || record != nil || recordVideo != nil || relayOnly || hangupAfter != nil
                || videoFile != nil)
        {
            throw ValidationError("--no-media excludes the media options")
        }
    }

    func options(video: Bool) -> MediaOptions {
        let audio: MediaOptions.AudioSource =
            play.map { .file($0, loop: loop) } ?? (mic ? .microphone : .tone(tone ?? 440))
        let off =
            noMedia
            || ["1", "true", "yes"].contains(
                ProcessInfo.processInfo.environment["SWITCHBOARD_NO_MEDIA"]?.lowercased() ?? "")
        return MediaOptions(
            enabled: !off, audio: audio, video: video, videoFile: videoFile, record: record, recordVideo: recordVideo,
            relayOnly: relayOnly, hangupAfter: hangupAfter, statsInterval: statsInterval, iceAddresses: iceAddress)
    }
}

struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Call a friend with real audio (and video) when GStreamer is installed: shows ringing, the outcome and the call's quality; h + Enter or Ctrl-C hangs up."
    )
    @OptionGroup var global: Global
    @Argument(help: "A friend's name, phone number or user id (#N).") var friend: String
    @Flag(help: "A video call (a test pattern, or --video-file).") var video = false
    @Option(help: "Send this SDP offer instead of making one (signalling only).") var offer: String?
    @OptionGroup var media: MediaArguments

    func validate() throws {
        if offer != nil && (media.record != nil || media.play != nil || media.relayOnly) {
            throw ValidationError("--offer sends signalling only: it excludes the media options")
        }
    }

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await CallSession(
                context: context, callee: friend, video: video, offerFile: offer, media: media.options(video: video)
            ).run()
        }
    }
}

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show every event; answer (a) or decline (d) incoming calls; h hangs up; /quit or Ctrl-C stops.")
    @OptionGroup var global: Global
    @Flag(help: "Answer every incoming call.") var autoAnswer = false
    @Flag(help: "Decline every incoming call.") var autoDecline = false
    @Option(help: "Presence while listening: online or away.") var presence: String?
    @Flag(help: "End when the first answered call ends, with that call's exit code.") var once = false
    @OptionGroup var media: MediaArguments

    func validate() throws {
        if autoAnswer && autoDecline { throw ValidationError("--auto-answer and --auto-decline exclude each other") }
        if let presence, Availability(rawValue: presence) == nil {
            throw ValidationError("--presence must be online or away")
        }
    }

    func run() async throws {
        let policy: ListenSession.Policy = autoAnswer ? .autoAnswer : autoDecline ? .autoDecline : .ask
        try await perform(global) { context throws(CLIError) in
            try await ListenSession(
                context: context, policy: policy, presence: presence.flatMap(Availability.init(rawValue:)),
                media: media.options(video: false), once: once
            ).run()
        }
    }
}

struct Hangup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "End this profile's current call from another process (same session, so the same device).")
    @OptionGroup var global: Global
    @Argument(help: "The call id (default: the call a running `call` or `listen` of this profile is in).") var callId:
        String?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.hangup(callId: callId)
            return .ok
        }
    }
}

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report a message or a user to the administrators.", subcommands: [Message.self, User.self])

    struct Message: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report the message at SEQ of a chat (a friend, a group or #conversation).")
        @OptionGroup var global: Global
        @Argument(help: "The chat: a friend, a group or a conversation id.") var conversation: String
        @Argument(help: "The message's sequence number in that chat.") var seq: Int64
        @Option(help: "spam, harassment, hate, violence, sexual, self_harm, illegal, impersonation or other.")
        var reason: String
        @Option(help: "Optional words for the administrators.") var text: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.reportMessage(conversation: conversation, seq: seq, reason: reason, text: text)
                return .ok
            }
        }
    }

    struct User: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Report a friend or someone in one of your chats.")
        @OptionGroup var global: Global
        @Argument(help: "Their display name, or #USER_ID.") var name: String
        @Option(help: "spam, harassment, hate, violence, sexual, self_harm, illegal, impersonation or other.")
        var reason: String
        @Option(help: "Optional words for the administrators.") var text: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.reportUser(name, reason: reason, text: text)
                return .ok
            }
        }
    }
}

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Moderation (administrators only): reports, removals, suspensions, the audit log.",
        subcommands: [Reports.self, Remove.self, Suspend.self, Reinstate.self, Resolve.self, Audit.self])

    struct Reports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open reports, newest first (--closed: resolved and dismissed).")
        @OptionGroup var global: Global
        @Flag(help: "Closed reports instead of open ones.") var closed = false
        @Option(help: "Reports older than this report id (paging).") var before: Int64?
        @Option(help: "Reports per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminReports(closed: closed, before: before, limit: limit)
                return .ok
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a message (members see a removed-by-moderation tombstone).")
        @OptionGroup var global: Global
        @Argument(help: "The message id (a report's target_id).") var messageId: Int64
        @Option(help: "Why (kept in the audit log).") var reason: String?
        @Option(help: "The report this acts on (resolved with it).") var report: Int64?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminRemove(messageId: messageId, reason: reason, report: report)
                return .ok
            }
        }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suspend an account: its connections close and it cannot log in.")
        @OptionGroup var global: Global
        @Argument(help: "The user id.") var user: String
        @Option(help: "Why (kept in the audit log).") var reason: String?
        @Option(help: "The report this acts on (resolved with it).") var report: Int64?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminSuspend(user, suspend: true, reason: reason, report: report)
                return .ok
            }
        }
    }

    struct Reinstate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Reinstate a suspended account.")
        @OptionGroup var global: Global
        @Argument(help: "The user id.") var user: String
        @Option(help: "Why (kept in the audit log).") var reason: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminSuspend(user, suspend: false, reason: reason, report: nil)
                return .ok
            }
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close a report as resolved (or --dismiss).")
        @OptionGroup var global: Global
        @Argument(help: "The report id.") var report: Int64
        @Flag(help: "Dismiss instead of resolve.") var dismiss = false
        @Option(help: "A note (kept with the report and in the audit log).") var note: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminResolve(report: report, dismiss: dismiss, note: note)
                return .ok
            }
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The moderation audit log, newest first.")
        @OptionGroup var global: Global
        @Option(help: "Entries older than this entry id (paging).") var before: Int64?
        @Option(help: "Entries per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminAudit(before: before, limit: limit)
                return .ok
            }
        }
    }
}

struct Account: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete your account, or download a copy of your data.", subcommands: [Delete.self, Export.self])

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Delete your account for good (asks for the password again); your messages stay as a deleted account's."
        )
        @OptionGroup var global: Global
        @Flag(help: "Read the password from the first line of stdin (else env SWITCHBOARD_PASSWORD, else a prompt).")
        var passwordStdin = false

        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                if !passwordStdin, context.environment["SWITCHBOARD_PASSWORD"] == nil {
                    context.printer.warning(
                        "this deletes your account, friends, voice messages and sessions for good; your messages stay as a deleted account's"
                    )
                }
                let password = try Terminal.readPassword(
                    fromStdin: passwordStdin, environment: context.environment, confirm: false)
                try await context.deleteAccount(password: password)
                return .ok
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the server for an archive of your data (.tar.gz), wait for it, and download it.")
        @OptionGroup var global: Global
        @Option(help: "Where to save it (default: switchboard-export-ID.tar.gz here).") var to: String?
        @Option(help: "Seconds to wait for the server to build it.") var timeout: Double = 600

        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.exportAccount(to: to, timeout: timeout)
                return .ok
            }
        }
    }
}

struct Hours: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show active hours: the last 30 days, or the hours of one date (yours, or a friend's with --user).")
    @OptionGroup var global: Global
    @Argument(help: "A date (YYYY-MM-DD) in the user's time zone: show its hours.") var date: String?
    @Option(help: "A friend's user id (default: yours).") var user: Int64?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.hours(date: date, userId: user)
            return .ok
        }
    }
}

struct ProfileSettings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Show a profile (`profile [@handle|ID]`), or change yours (`profile set`).",
        subcommands: [ProfileShow.self, Set.self], defaultSubcommand: ProfileShow.self)

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set any of your display name, time zone, locale, bio, protected account and DM policy.")
        @OptionGroup var global: Global
        @Option(help: "Display name.") var name: String?
        @Option(name: .customLong("time-zone"), help: "IANA time zone, e.g. Europe/Paris (active hours and calendars).")
        var timeZone: String?
        @Option(help: "BCP 47 locale, e.g. fr-FR.") var locale: String?
        @Option(help: "Bio (≤ 160 characters; empty: none).") var bio: String?
        @Flag(
            inversion: .prefixedNo,
            help: "A protected account: follows are requests you approve, posts only for followers.") var protected:
            Bool?
        @Option(
            name: .customLong("dm-policy"), help: "Who may start a direct conversation: friends, mutuals or anyone.")
        var dmPolicy: String?

        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                let social = bio != nil || protected != nil || dmPolicy != nil
                if name != nil || timeZone != nil || locale != nil || !social {
                    try await context.setProfile(name: name, timeZone: timeZone, locale: locale)
                }
                if social { try await context.setSocialProfile(bio: bio, protected: protected, dmPolicy: dmPolicy) }
                return .ok
            }
        }
    }
}
