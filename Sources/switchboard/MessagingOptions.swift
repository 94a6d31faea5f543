//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Messaging, presence and typing limits of `serve`.
struct MessagingOptions: ParsableArguments {
    @Option(help: "Longest text message in characters. [env: SWITCHBOARD_MAX_TEXT_CHARACTERS]")
    var maxTextCharacters: Int = envValue("SWITCHBOARD_MAX_TEXT_CHARACTERS", as: Int.self) ?? 4096

    @Option(help: "Longest text message in UTF-8 bytes. [env: SWITCHBOARD_MAX_TEXT_BYTES]")
    var maxTextBytes: Int = envValue("SWITCHBOARD_MAX_TEXT_BYTES", as: Int.self) ?? 16 * 1024

    @Option(help: "Most members of a group. [env: SWITCHBOARD_MAX_GROUP_MEMBERS]")
    var maxGroupMembers: Int = envValue("SWITCHBOARD_MAX_GROUP_MEMBERS", as: Int.self) ?? 5000

    @Option(help: "Most writes committed in one transaction. [env: SWITCHBOARD_MESSAGE_BATCH]")
    var messageBatch: Int = envValue("SWITCHBOARD_MESSAGE_BATCH", as: Int.self) ?? 1024

    @Option(help: "Writes waiting per writer before new ones get `unavailable`. [env: SWITCHBOARD_MAX_PENDING_WRITES]")
    var maxPendingWrites: Int = envValue("SWITCHBOARD_MAX_PENDING_WRITES", as: Int.self) ?? 50_000

    @Option(help: "Message writers (conversations are split among them by id). [env: SWITCHBOARD_MESSAGE_WRITERS]")
    var messageWriters: Int = envValue("SWITCHBOARD_MESSAGE_WRITERS", as: Int.self) ?? 2

    @Option(help: "Messages per history page at most. [env: SWITCHBOARD_HISTORY_MAX_LIMIT]")
    var historyMaxLimit: Int = envValue("SWITCHBOARD_HISTORY_MAX_LIMIT", as: Int.self) ?? 100

    @Option(help: "Live messages held per connection while it resumes. [env: SWITCHBOARD_MAX_HELD_DURING_SYNC]")
    var maxHeldDuringSync: Int = envValue("SWITCHBOARD_MAX_HELD_DURING_SYNC", as: Int.self) ?? 20_000

    @Option(help: "Pinned messages a conversation may show at most. [env: SWITCHBOARD_MAX_PINNED_MESSAGES]")
    var maxPinnedMessages: Int = envValue("SWITCHBOARD_MAX_PINNED_MESSAGES", as: Int.self) ?? 50

    @Option(help: "Messages per user per second (burst twice that). [env: SWITCHBOARD_SEND_RATE]")
    var sendRate: Double = envValue("SWITCHBOARD_SEND_RATE", as: Double.self) ?? 500

    @Option(help: "Reactions per user per second (burst three times that). [env: SWITCHBOARD_REACTION_RATE]")
    var reactionRate: Double = envValue("SWITCHBOARD_REACTION_RATE", as: Double.self) ?? 10

    @Option(help: "Reports (report.create) per user per hour, also the burst. [env: SWITCHBOARD_REPORT_RATE]")
    var reportRate: Double = envValue("SWITCHBOARD_REPORT_RATE", as: Double.self) ?? 20

    @Option(help: "Seconds a user stays available after its last device goes. [env: SWITCHBOARD_PRESENCE_GRACE]")
    var presenceGrace: Double = envValue("SWITCHBOARD_PRESENCE_GRACE", as: Double.self) ?? 5

    @Option(
        help:
            """
            Seconds between checkpoints of open active-hours intervals (what a crash loses at most). [env: \
            SWITCHBOARD_ACTIVE_HOURS_CHECKPOINT]
            """
    )
    var activeHoursCheckpoint: Double = envValue("SWITCHBOARD_ACTIVE_HOURS_CHECKPOINT", as: Double.self) ?? 300

    @Option(
        name: .customLong("typing-ttl"),
        help: "Seconds a typing indicator lives without a refresh. [env: SWITCHBOARD_TYPING_TTL]")
    var typingTTL: Double = envValue("SWITCHBOARD_TYPING_TTL", as: Double.self) ?? 6

    @Option(help: "Typing updates per user per second (burst 10). [env: SWITCHBOARD_TYPING_RATE]")
    var typingRate: Double = envValue("SWITCHBOARD_TYPING_RATE", as: Double.self) ?? 4

    @Option(
        help:
            """
            Seconds a writer tries to learn whether a commit whose answer was lost took effect (0: never). [env: \
            SWITCHBOARD_COMMIT_RESOLUTION_TIMEOUT]
            """
    )
    var commitResolutionTimeout: Double = envValue("SWITCHBOARD_COMMIT_RESOLUTION_TIMEOUT", as: Double.self) ?? 30

    func validate() throws {
        guard maxTextCharacters >= 1, maxTextBytes >= 4, commitResolutionTimeout >= 0,
            commitResolutionTimeout <= 86_400, maxGroupMembers >= 3, messageBatch >= 1, maxPendingWrites >= 1,
            messageWriters >= 1,
            historyMaxLimit >= 10, maxHeldDuringSync >= 1, maxPinnedMessages >= 1, presenceGrace >= 0, typingTTL > 0,
            typingRate > 0, sendRate > 0,
            reactionRate > 0, reportRate > 0, activeHoursCheckpoint >= 1, activeHoursCheckpoint <= 86_400
        else {
            throw ValidationError(
                """
                messaging limits must be positive (groups at least 3 members, history pages at least 10, \
                active-hours checkpoint 1-86400 s)
                """
            )
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.messaging.maxTextCharacters = maxTextCharacters
        c.messaging.maxTextBytes = maxTextBytes
        c.messaging.commitResolutionTimeout = commitResolutionTimeout
        c.messaging.maxGroupMembers = maxGroupMembers
        c.messaging.maxBatch = messageBatch
        c.messaging.maxPendingWrites = maxPendingWrites
        c.messaging.writers = messageWriters
        c.messaging.historyMaxLimit = historyMaxLimit
        c.messaging.maxHeldDuringSync = maxHeldDuringSync
        c.messaging.maxPinnedMessages = maxPinnedMessages
        c.messaging.presenceGrace = presenceGrace
        c.messaging.typingTTL = typingTTL
        c.messaging.typingPerSecond = typingRate
        c.messaging.sendsPerSecond = sendRate
        c.messaging.sendBurst = sendRate * 2
        c.messaging.reactionsPerSecond = reactionRate
        c.messaging.reactionBurst = reactionRate * 3
        c.messaging.reportsPerHour = reportRate
        c.activeHours.checkpointInterval = activeHoursCheckpoint
    }
}
