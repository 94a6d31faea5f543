//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a messaging request was refused (`conversations.*`, `groups.*`, `messages.*`, `sync`; docs/protocol.md,
/// "Messaging"); mapped to the wire in `wire`, with the messages the wire has always had. Refusals of the
/// conversation writers (`MessageBatch`: membership, friendship, group size, who may delete) are the writer's
/// answers and stay `ServiceError`s.
public enum MessagingError: FeatureError, Equatable {
    /// The conversation does not exist or the caller is not (or never was) a member: one answer for both, so
    /// conversation ids cannot be probed.
    case notMember
    /// The message does not exist or the caller cannot see it: one answer for both.
    case noSuchMessage
    /// `messages.history`'s `limit` outside 1...`max`.
    case historyLimit(max: Int)
    /// `messages.history`'s `before` below 1.
    case beforeNotASequenceNumber
    /// `conversations.read`'s `seq` below 0.
    case readSeqNegative
    /// `sync`'s `since` has a key that is not a conversation id or a negative value.
    case badSince
    /// `conversations.direct` or `messages.send` by `user_id` with the caller's own id.
    case conversationWithYourself
    /// The other user blocked the caller or was blocked by it: answered as if the user did not exist.
    case noSuchUser
    /// The other user's direct-message policy refuses the caller (not friends).
    case notFriends
    /// `groups.create` with fewer than two other members.
    case groupTooSmall
    /// `groups.create` with `max` members or more besides the creator.
    case groupTooLarge(max: Int)
    /// `groups.create` naming someone who is not the creator's friend.
    case membersNotFriends
    /// A string parameter (`client_id`, a group `name`) is not a valid stored string (the validator's message).
    case invalidParameter(String)
    /// A message's `text` is not a valid message text (the validator's message; `invalid_text`).
    case invalidText(String)
    /// `messages.send` with both or neither of `text` and `voice_id`.
    case textOrVoice
    /// `messages.send` with neither `conversation_id` nor `user_id`.
    case conversationOrUser
    /// `messages.send`'s `voice_id` is not a clip the caller uploaded.
    case noSuchVoiceClip
    /// The caller's message bucket is empty (`messages.send`, and pins, which count as messages).
    case rateLimited(retryAfterMilliseconds: Int64)
    /// A pin of a message that was deleted for everyone (by its sender or by moderation).
    case messageDeleted
    /// A pin of a system message (only what members wrote may be pinned).
    case systemMessageNotPinnable
    /// A pin beyond the conversation's `max` pinned messages.
    case tooManyPins(max: Int)
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .notMember: return ServiceError(.notMember, "not a member, or no such conversation")
        case .noSuchMessage: return ServiceError(.notFound, "no such message")
        case .historyLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .beforeNotASequenceNumber:
            return ServiceError(.badRequest, "before must be a sequence number (1 or more)")
        case .readSeqNegative: return ServiceError(.badRequest, "seq must be a sequence number (0 or more)")
        case .badSince: return ServiceError(.badRequest, "since maps conversation ids to sequence numbers")
        case .conversationWithYourself:
            return ServiceError(.badRequest, "a conversation with yourself is not possible")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .notFriends: return ServiceError(.notFriends, "you can only message friends")
        case .groupTooSmall: return ServiceError(.badRequest, "a group needs at least two friends besides you")
        case .groupTooLarge(let max): return ServiceError(.tooMany, "a group has at most \(max) members")
        case .membersNotFriends: return ServiceError(.notFriends, "every member must be your friend")
        case .invalidParameter(let problem): return ServiceError(.badRequest, problem)
        case .invalidText(let problem): return ServiceError(.invalidText, problem)
        case .textOrVoice: return ServiceError(.badRequest, "give text or voice_id (one of them)")
        case .conversationOrUser: return ServiceError(.badRequest, "give conversation_id or user_id")
        case .noSuchVoiceClip: return ServiceError(.notFound, "no such voice clip of yours")
        case .rateLimited(let retryAfter):
            return ServiceError(.rateLimited, "too many messages", extra: ["retry_after_ms": retryAfter])
        case .messageDeleted: return ServiceError(.invalidState, "the message was deleted")
        case .systemMessageNotPinnable: return ServiceError(.badRequest, "a system message cannot be pinned")
        case .tooManyPins(let max):
            return ServiceError(.tooMany, "a conversation has at most \(max) pinned messages")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: MessagingError, rhs: MessagingError) -> Bool { lhs.wire == rhs.wire }
}
