//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The messaging objects as a client decodes them (docs/protocol.md, "Messaging"). Property names are
// camelCase; the wire's snake_case keys are converted when decoding.

public import SwitchboardProtocol

// The message, conversation and acknowledgement types are the protocol module's, shared with the server;
// these names are the client's vocabulary for them.

/// What a system message says.
public typealias SystemNotice = SystemEvent
/// A voice message's clip: `{voice_id, duration_ms, waveform, size, mime_type}`.
public typealias VoiceNote = VoiceAttachment
/// A message: `{id, conversation_id, seq, sender_id, kind, text?, voice?, system?, client_id?, ts, deleted?}`.
public typealias Message = ChatMessage
/// A member of a conversation.
public typealias Member = ConversationMember
/// A conversation as listed.
public typealias Conversation = ConversationSummary
/// The acknowledgement of `messages.send`: the message is stored.
public typealias SendAcknowledgement = SendAck

/// A page of `messages.history`, newest first.
public typealias HistoryPage = HistoryResult

/// The reply to `sync`, after its catch-up: each conversation's last seq and the number of messages sent.
public typealias SyncSummary = SyncResult

// `PresenceUpdate`, `TypingUpdate` and `PresenceSnapshot` are the protocol's event types.

// MARK: - Small results

/// Only what the baseline needs from `conversations.list`.
struct BaselineResult: Decodable {
    struct Entry: Decodable {
        var conversationId: Int64
        var lastSeq: Int64
    }

    var conversations: [Entry]
}
