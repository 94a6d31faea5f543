//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

/// What the client reports on its `events` stream, in the order it happened.
public enum ClientEvent: Sendable {
    /// The connection state changed.
    case state(ConnectionState)
    /// The connection dropped (the text says how: close code or error); reconnecting follows when possible.
    case disconnected(reason: String)
    /// A message, live or from a catch-up; each (conversation, seq) exactly once, in seq order per conversation.
    case message(Message)
    /// A catch-up finished (after a reconnect, or `authenticate(token:resumeFrom:)`).
    case resumed(SyncSummary)
    /// `conversation.read`.
    case conversationRead(ReadReceipt)
    /// `message.hidden`.
    case messageHidden(HiddenMessage)
    /// `message.reaction`: a member set (`emoji`) or removed (nil) a reaction; the message's new counts.
    case messageReaction(MessageReactionEvent)
    /// `presence`.
    case presence(PresenceUpdate)
    /// `presence.snapshot`, right after authenticating.
    case presenceSnapshot([PresenceUpdate])
    /// `typing`.
    case typing(TypingUpdate)
    /// An account event of protocol v1 (friend requests, profile updates, `session.revoked`).
    case account(ServerEvent)
    /// Any other event (calls, and events of later versions): its name and the whole frame.
    case other(RawEvent)
}
