//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Post: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Post to your followers (`post TEXT`), or an announcement or a course lesson to a community (`post C \
            TITLE`, core members, administrators); `post list C` lists those.
            """,
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
                        """
                        post TEXT [--voice FILE] [--photo FILE]... (quote the text), or post C TITLE [--body B] for a \
                        community
                        """,
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
