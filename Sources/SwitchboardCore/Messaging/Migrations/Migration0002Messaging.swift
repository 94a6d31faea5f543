//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Conversations (one-to-one and groups), members with their visible range and read marker, messages
    /// with a per-conversation sequence number, and per-user hidden messages.
    public static let v0002Messaging = Migration(
        version: 2, name: "conversations and messages",
        sql: """
            CREATE TABLE conversations (
                id               BIGSERIAL PRIMARY KEY,
                kind             TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
                name             TEXT,
                direct_low       BIGINT REFERENCES users (id) ON DELETE CASCADE,
                direct_high      BIGINT REFERENCES users (id) ON DELETE CASCADE,
                created_by       BIGINT REFERENCES users (id) ON DELETE SET NULL,
                created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
                last_seq         BIGINT NOT NULL DEFAULT 0,
                last_activity_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                CHECK ((kind = 'direct') = (direct_low IS NOT NULL AND direct_high IS NOT NULL)),
                CHECK (direct_low IS NULL OR direct_low < direct_high),
                UNIQUE (direct_low, direct_high)
            );

            -- A member sees the messages with joined_seq < seq (<= left_seq once it has left).
            CREATE TABLE members (
                conversation_id BIGINT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
                user_id         BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                joined_seq      BIGINT NOT NULL,
                left_seq        BIGINT,
                read_seq        BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (conversation_id, user_id)
            );
            CREATE INDEX members_by_user ON members (user_id) WHERE left_seq IS NULL;

            CREATE TABLE messages (
                id              BIGSERIAL PRIMARY KEY,
                conversation_id BIGINT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
                seq             BIGINT NOT NULL,
                sender_id       BIGINT REFERENCES users (id) ON DELETE SET NULL,
                kind            TEXT NOT NULL CHECK (kind IN ('text', 'voice', 'system')),
                body            TEXT,
                client_id       TEXT,
                created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
                deleted_at      TIMESTAMPTZ,
                UNIQUE (conversation_id, seq)
            );
            CREATE UNIQUE INDEX messages_client_id ON messages (conversation_id, sender_id, client_id)
                WHERE client_id IS NOT NULL;

            CREATE TABLE hidden_messages (
                user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                message_id BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
                PRIMARY KEY (user_id, message_id)
            );
            """
    )
}
