//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Message reactions (docs/protocol.md, "Reactions"): one emoji per user per message.

extension Ops {
    /// The reaction ops.
    public static let reactions: [any ProtocolOperation.Type] = [ReactionsSet.self]

    /// `reactions.set {message_id, emoji, active?}` -> `{conversation_id, message_id, reactions}`: sets my
    /// reaction to a message (replacing my earlier one), or removes it with `active` false.
    public enum ReactionsSet: ProtocolOperation {
        public static let name = "reactions.set"
        public static let stateChanging = true
        /// Setting the same emoji twice, or removing twice, leaves the same state.
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.reactions
        public struct Parameters: Codable, Sendable, Equatable {
            public var messageId: Int64
            /// At most 8 grapheme clusters and 64 UTF-8 bytes, no control characters.
            public var emoji: String
            /// False removes my reaction (whatever its emoji); default true.
            public var active: Bool?
            public init(messageId: Int64, emoji: String, active: Bool? = nil) {
                self.messageId = messageId
                self.emoji = emoji
                self.active = active
            }
        }
        public typealias Result = ReactionsResult
    }
}
