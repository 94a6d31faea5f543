//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Messaging settings (every limit configurable; see README).
public struct MessagingConfiguration: Sendable {
    /// Longest text message in characters (grapheme clusters).
    public var maxTextCharacters = 4096
    /// Longest text message in UTF-8 bytes (a character can take many: combining marks, emoji sequences).
    public var maxTextBytes = 16 * 1024
    /// Longest client message id in bytes (1 or more; no control characters).
    public var maxClientIdBytes = 64
    /// Most members of a group.
    public var maxGroupMembers = 5000
    /// Longest group name in characters, and in UTF-8 bytes.
    public var maxGroupNameCharacters = 128
    public var maxGroupNameBytes = 512
    /// Most writes committed in one transaction (group commit).
    public var maxBatch = 1024
    /// Writes waiting per writer before new ones are refused with `unavailable`.
    public var maxPendingWrites = 50_000
    /// Writers (each owns the conversations with `id % writers` equal to its index).
    public var writers = 2
    /// Conversation states kept in memory per writer (reloaded from the database when evicted).
    public var maxCachedConversations = 50_000
    /// Messages per history page by default, and at most.
    public var historyDefaultLimit = 10
    public var historyMaxLimit = 100
    /// Messages per database read while resuming.
    public var syncChunk = 500
    /// Live messages held for a connection while it resumes; beyond this it is closed (1013) and resumes again.
    public var maxHeldDuringSync = 20_000
    /// Most conversations in `conversations.list`.
    public var maxConversationsListed = 500
    /// Most pinned messages a conversation shows (`messages.pin` answers `too_many` beyond).
    public var maxPinnedMessages = 50
    /// Seconds a user stays available after its last device goes.
    public var presenceGrace: Double = 5
    /// Seconds a typing or recording indicator lives without a refresh.
    public var typingTTL: Double = 6
    /// Messages a user may send (all devices together): burst and per second.
    public var sendBurst: Double = 1000
    public var sendsPerSecond: Double = 500
    /// Reactions (`reactions.set`) per user per second, and the burst.
    public var reactionsPerSecond: Double = 10
    public var reactionBurst: Double = 30
    /// Reports (`report.create`) per user per hour; the burst is the same number.
    public var reportsPerHour: Double = 20
    /// Typing updates per user: burst and per second.
    public var typingBurst: Double = 10
    public var typingPerSecond: Double = 4
    /// Bytes a connection may have queued before presence and typing events to it are conflated (only the
    /// latest per source is kept until it drains).
    public var conflateAboveBytes = 64 * 1024
    /// Seconds a writer keeps trying to learn whether a batch committed when the connection failed during its
    /// COMMIT (the outcome is unknown); past it, the batch's writes are answered `unavailable`. 0: never try.
    public var commitResolutionTimeout: Double = 30
    /// Test only: SQL the writer runs on the batch's connection right after a COMMIT succeeded (a test makes the
    /// commit's answer "lost" with `pg_terminate_backend(pg_backend_pid())`). nil in production.
    public var sqlAfterCommitForTesting: (@Sendable () -> String?)?

    public init() {}

    /// The rule of message text (`invalid_text` names the rule broken).
    var textRule: TextRule { MessageText.rule(maxCharacters: maxTextCharacters, maxBytes: maxTextBytes) }
    /// The rule of client message ids: 1 to `maxClientIdBytes` bytes, no control characters.
    var clientIdRule: TextRule {
        TextRule(field: "client_id", maxCharacters: maxClientIdBytes, maxBytes: maxClientIdBytes, allowsBlank: true)
    }
    /// The rule of group names.
    var groupNameRule: TextRule {
        TextRule(field: "name", maxCharacters: maxGroupNameCharacters, maxBytes: maxGroupNameBytes)
    }
}
