//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What a system message says (membership changes, renames, deletions, call records).
public struct SystemEvent: Codable, Sendable, Equatable {
    /// `created`, `member_added`, `member_left`, `renamed`, `message_deleted` or `call`.
    public var event: String
    /// The user who did it (creator, adder, leaver, renamer, deleter, caller).
    public var actorId: Int64?
    /// The users it concerns (members of a new group, the added member).
    public var userIds: [Int64]?
    /// A group's new name.
    public var name: String?
    /// The deleted message.
    public var messageId: Int64?
    /// Call records: the call id, `voice` or `video`, the outcome and the duration of a completed call.
    public var callId: String?
    public var media: String?
    public var outcome: String?
    public var durationMs: Int64?

    public init(
        event: String, actorId: Int64? = nil, userIds: [Int64]? = nil, name: String? = nil, messageId: Int64? = nil,
        callId: String? = nil, media: String? = nil, outcome: String? = nil, durationMs: Int64? = nil
    ) {
        self.event = event
        self.actorId = actorId
        self.userIds = userIds
        self.name = name
        self.messageId = messageId
        self.callId = callId
        self.media = media
        self.outcome = outcome
        self.durationMs = durationMs
    }

    /// The JSON stored in `messages.body`.
    public var json: String { String(decoding: MessageJSON.encode(self), as: UTF8.self) }

    /// Parses stored JSON (nil when it is not a system event).
    public static func parse(_ text: String) -> SystemEvent? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try? decoder.decode(SystemEvent.self, from: Data(text.utf8))
    }
}
