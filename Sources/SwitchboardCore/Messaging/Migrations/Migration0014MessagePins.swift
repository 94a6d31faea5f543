//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Pinned messages: one row per pinned message (a message is pinned once, in its own conversation), who pinned
    /// it and when. A pin of a message deleted for everyone is no longer shown (and is removed by the next pin of
    /// the conversation); a message or conversation removed for good takes its pins with it.
    public static let v0014MessagePins = Migration(
        version: 14, name: "pinned messages",
        sql: """
            CREATE TABLE message_pins (
                message_id      BIGINT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
                conversation_id BIGINT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
                pinned_by       BIGINT REFERENCES users (id) ON DELETE SET NULL,
                pinned_at       TIMESTAMPTZ NOT NULL DEFAULT now()
            );
            CREATE INDEX message_pins_by_conversation
                ON message_pins (conversation_id, pinned_at DESC, message_id DESC);
            CREATE INDEX message_pins_by_user ON message_pins (pinned_by) WHERE pinned_by IS NOT NULL;
            """
    )
}
