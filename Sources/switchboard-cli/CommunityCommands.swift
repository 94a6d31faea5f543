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

// Arguments of communities, events, calendar, course and post (the commands live in SwitchboardCLIKit's
// CommunityCommands.swift). COMMUNITY is `#ID`, `ID` or the community's name.

struct Communities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Communities: list (joined first, with unread counts), show, join, quit, members, notifications, read; admins: create, update, archive, core.",
        subcommands: [
            List.self, Show.self, Join.self, Quit.self, Members.self, Notifications.self, Read.self, Create.self,
            Update.self,
            Archive.self, Core.self,
        ],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Joined communities first (with unread counts), then the others, by name.")
        @OptionGroup var global: Global
        @Option(help: "Communities per page (1-100).") var limit: Int?
        @Option(help: "The page after this cursor (as the previous page's hint shows).") var cursor: String?
        @Flag(help: "Every page.") var all = false
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listCommunities(limit: limit, cursor: cursor, all: all)
                return .ok
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A community; for members its upcoming events and announcements.")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.showCommunity(community)
                return .ok
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Join a community.")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.joinCommunity(community)
                return .ok
            }
        }
    }

    struct Quit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave a community (and its upcoming events).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.quitCommunity(community)
                return .ok
            }
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A community's members, core members first (members and admins).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "Members per page (1-200).") var limit: Int?
        @Option(help: "The page after this cursor.") var cursor: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.communityMembers(community, limit: limit, cursor: cursor)
                return .ok
            }
        }
    }

    struct Notifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A community's notifications, newest first (● unread).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "Notifications older than this seq (paging).") var before: Int64?
        @Option(help: "Notifications per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.communityNotifications(community, before: before, limit: limit)
                return .ok
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a community's notifications read (your other devices clear their dot).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "Read up to this seq (default: the newest).") var seq: Int64?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.readCommunity(community, seq: seq)
                return .ok
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a community (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "Its name (1-80 characters, unique among live communities).") var name: String
        @Option(help: "What it is about.") var description: String?
        @Option(help: "A category (≤ 40 characters).") var category: String?
        @Option(help: "A picture URL.") var picture: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.createCommunity(
                    name: name, description: description, category: category, picture: picture)
                return .ok
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a community's name, description, category or picture (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "A new description.") var description: String?
        @Option(help: "A new category.") var category: String?
        @Option(help: "A new picture URL (empty: none).") var picture: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.updateCommunity(
                    community, name: name, description: description, category: category, picture: picture)
                return .ok
            }
        }
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Archive a community: read-only for its members, hidden from others (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.archiveCommunity(community)
                return .ok
            }
        }
    }

    struct Core: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Appoint a member core member (posts announcements and lessons), or --remove (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Argument(help: "The member's user id (as `communities members` shows it).") var user: String
        @Flag(help: "Make them a plain member again.") var remove = false
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.setCoreMember(community, user: user, core: !remove)
                return .ok
            }
        }
    }
}

/// The options of `events create` and `events update`.
struct EventOptions: ParsableArguments {
    @Option(help: "Title (1-120 characters).") var title: String?
    @Option(help: "Description.") var description: String?
    @Option(help: "Where it takes place.") var place: String?
    @Option(help: "Start: YYYY-MM-DD HH:MM in --tz, or a timestamp with Z or an offset.") var starts: String?
    @Option(help: "End (same forms; at most 31 days after the start).") var ends: String?
    @Option(help: "Length in minutes (instead of --ends).") var duration: Int?
    @Option(help: "The organiser's IANA time zone (default: TZ, else this machine's).") var tz: String?
    @Option(help: "Places (1-100,000).") var capacity: Int?
    @Flag(help: "Remove the capacity limit (update).") var noCapacity = false

    func fields(_ context: CLIContext) throws(CLIError) -> EventFields {
        try context.eventParameters(
            title: title, description: description, place: place, starts: starts, ends: ends, durationMinutes: duration,
            zone: tz,
            capacity: capacity, noCapacity: noCapacity)
    }
}

struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A community's events: list, show, join, drop; admins: create, update, cancel.",
        subcommands: [List.self, Show.self, Join.self, Drop.self, Create.self, Update.self, Cancel.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upcoming events in order (--past: ended ones, latest first).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Flag(help: "Ended events instead.") var past = false
        @Option(help: "The page after this cursor.") var cursor: String?
        @Option(help: "Events per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listEvents(community, past: past, cursor: cursor, limit: limit)
                return .ok
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One event.")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.showEvent(event)
                return .ok
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take part in an event (it shows in your calendar).")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.joinEvent(event, join: true)
                return .ok
            }
        }
    }

    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "No longer take part in an event.")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.joinEvent(event, join: false)
                return .ok
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish an event to a community's members (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @OptionGroup var options: EventOptions
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.createEvent(community, fields: try options.fields(context))
                return .ok
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an event; its participants are notified (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        @OptionGroup var options: EventOptions
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.updateEvent(event, fields: try options.fields(context))
                return .ok
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel an event; its participants are notified (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.cancelEvent(event)
                return .ok
            }
        }
    }
}

struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "The events you joined by day, week, month (a grid, today in brackets) or year, in your time zone.")
    @OptionGroup var global: Global
    @Argument(help: "day, week, month or year.") var range: String = "month"
    @Argument(help: "A date inside the range, YYYY-MM-DD (default: today).") var date: String?
    @Option(help: "An IANA time zone (default: your profile's).") var tz: String?
    @Option(help: "A BCP 47 locale deciding the week's first day (default: your profile's).") var locale: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.calendar(range: range, date: date, zone: tz, locale: locale)
            return .ok
        }
    }
}

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

struct Post: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Post to your followers (`post TEXT`), or an announcement or a course lesson to a community (`post C TITLE`, core members, administrators); `post list C` lists those.",
        subcommands: [Say.self, Create.self, List.self], defaultSubcommand: Say.self)

    /// `post TEXT [--voice FILE]` (a social post), or `post C TITLE [...]` (as `post create`).
    struct Say: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "say",
            abstract:
                "`post TEXT`: a post to your followers; `post C TITLE`: a community announcement (as `post create`).")
        @OptionGroup var global: Global
        @Argument(help: "TEXT (≤ 280 characters), or COMMUNITY TITLE.") var words: [String] = []
        @Option(help: "A voice recording to attach (WAV, Ogg/Opus or WebM).") var voice: String?
        @Option(name: .customLong("photo"), help: "A photo to attach (JPEG, PNG, WebP, HEIC); repeat for up to 4.")
        var photos: [String] = []
        @Option(help: "A community post's text.") var body: String?
        @Flag(help: "A community course lesson instead of an announcement.") var lesson = false
        @Option(help: "A lesson's place in the course (default: last).") var position: Int?
        @Option(name: .customLong("video-url"), help: "A community post's video link (http or https).") var videoURL:
            String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                switch words.count {
                case 0 where voice != nil || !photos.isEmpty:
                    try await context.publishPost(nil, replyTo: nil, voiceFile: voice, photoFiles: photos)
                case 1 where body == nil && !lesson && position == nil && videoURL == nil:
                    try await context.publishPost(words[0], replyTo: nil, voiceFile: voice, photoFiles: photos)
                case 2 where photos.isEmpty:
                    try await context.createPost(
                        words[0], title: words[1], body: body, lesson: lesson, position: position, videoURL: videoURL,
                        voiceFile: voice)
                default:
                    throw CLIError(
                        "post TEXT [--voice FILE] [--photo FILE]... (quote the text), or post C TITLE [--body B] for a community",
                        exitCode: .usage)
                }
                return .ok
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Post an announcement (--lesson: a course lesson).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Argument(help: "The title (1-120 characters).") var title: String
        @Option(help: "The text.") var body: String?
        @Flag(help: "A course lesson instead of an announcement.") var lesson = false
        @Option(help: "A lesson's place in the course (default: last).") var position: Int?
        @Option(name: .customLong("video-url"), help: "A video link (http or https).") var videoURL: String?
        @Option(help: "A voice recording to attach (WAV, Ogg/Opus or WebM).") var voice: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.createPost(
                    community, title: title, body: body, lesson: lesson, position: position, videoURL: videoURL,
                    voiceFile: voice)
                return .ok
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A community's announcements (--lessons: lessons), newest first.")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Flag(help: "Lessons instead of announcements.") var lessons = false
        @Option(help: "Posts older than this post id.") var before: Int64?
        @Option(help: "Posts per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listPosts(community, lessons: lessons, before: before, limit: limit)
                return .ok
            }
        }
    }
}
