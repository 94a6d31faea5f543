//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

/// The versioned database schema, applied in order at start-up (see `Migrator`).
public enum Schema {
    /// Every migration, oldest first. Never edit a released migration: add a new one.
    public static let migrations: [Migration] = [
        Migration(version: 1, name: "accounts, sessions and friends", sql: accountsAndFriends),
        Migration(version: 2, name: "conversations and messages", sql: messaging),
        Migration(version: 3, name: "calls", sql: calls),
        Migration(version: 4, name: "voice clips", sql: voice),
        Migration(version: 5, name: "message reactions", sql: reactions),
        Migration(version: 6, name: "conversation versions", sql: conversationVersions),
        Migration(version: 7, name: "account deletion and data export", sql: accountLifecycle),
        Migration(version: 8, name: "administrators and moderation", sql: moderation),
    ]

    /// The version of a conversation's members and name, bumped by every change of them, so that a process
    /// holding a cached copy learns under the row lock whether another process changed it (see `MessageBatch`).
    static let conversationVersions = """
ALTER TABLE conversations ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
"""

    /// The newest version this build knows.
    public static var latestVersion: Int { migrations.last?.version ?? 0 }

    static let accountsAndFriends = """
CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    phone         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen_at  TIMESTAMPTZ
);

CREATE TABLE sessions (
    id           BIGSERIAL PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash   BYTEA NOT NULL UNIQUE,
    device       TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX sessions_by_user ON sessions (user_id) WHERE revoked_at IS NULL;

CREATE TABLE friend_requests (
    id         BIGSERIAL PRIMARY KEY,
    from_user  BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    to_user    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (from_user <> to_user),
    UNIQUE (from_user, to_user)
);
CREATE INDEX friend_requests_to ON friend_requests (to_user);

CREATE TABLE friendships (
    user_low   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    user_high  BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_low, user_high),
    CHECK (user_low < user_high)
);
CREATE INDEX friendships_high ON friendships (user_high);
"""

    /// Conversations (one-to-one and groups), members with their visible range and read marker, messages
    /// with a per-conversation sequence number, and per-user hidden messages.
    static let messaging = """
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
CREATE UNIQUE INDEX messages_client_id ON messages (conversation_id, sender_id, client_id) WHERE client_id IS NOT NULL;

CREATE TABLE hidden_messages (
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    message_id BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, message_id)
);
"""

    /// Transcoded voice recordings (deduplicated per uploader by hash) and the messages that reference them.
    /// (Version 3 is the calls migration.)
    static let voice = """
CREATE TABLE voice_clips (
    id          BIGSERIAL PRIMARY KEY,
    uploader_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    sha256      BYTEA NOT NULL,
    audio       BYTEA NOT NULL,
    duration_ms INT NOT NULL,
    waveform    BYTEA NOT NULL,
    size        INT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (uploader_id, sha256)
);
ALTER TABLE messages ADD COLUMN voice_id BIGINT REFERENCES voice_clips (id);
CREATE INDEX messages_voice ON messages (voice_id) WHERE voice_id IS NOT NULL;
"""

    /// One row per ended call (the call history); the one-to-one conversation also gets a system message.
    static let calls = """
CREATE TABLE calls (
    id          TEXT PRIMARY KEY,
    caller_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    callee_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    media       TEXT NOT NULL CHECK (media IN ('voice', 'video')),
    outcome     TEXT NOT NULL,
    reason      TEXT NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL,
    answered_at TIMESTAMPTZ,
    ended_at    TIMESTAMPTZ NOT NULL,
    duration_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX calls_by_caller ON calls (caller_id, ended_at DESC);
CREATE INDEX calls_by_callee ON calls (callee_id, ended_at DESC);
"""

    /// One reaction per user per message (a new emoji replaces the old one; `reactions.set`).
    static let reactions = """
CREATE TABLE message_reactions (
    message_id  BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    emoji       TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (message_id, user_id)
);
"""

    /// Administrators, suspensions, reports and the moderation audit log (`docs/moderation.md`). A report's
    /// `target_kind` has room for `post` (posts do not exist yet). Rows of the audit log outlive the accounts
    /// they name (`ON DELETE SET NULL`).
    static let moderation = """
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin'));
ALTER TABLE users ADD COLUMN suspended_at TIMESTAMPTZ;
ALTER TABLE messages ADD COLUMN removed_at TIMESTAMPTZ;

CREATE TABLE reports (
    id              BIGSERIAL PRIMARY KEY,
    reporter_id     BIGINT REFERENCES users (id) ON DELETE SET NULL,
    target_kind     TEXT NOT NULL CHECK (target_kind IN ('message', 'user', 'post')),
    target_id       BIGINT NOT NULL,
    target_user_id  BIGINT REFERENCES users (id) ON DELETE SET NULL,
    conversation_id BIGINT REFERENCES conversations (id) ON DELETE SET NULL,
    content         TEXT,
    reason          TEXT NOT NULL,
    details         TEXT,
    status          TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    closed_at       TIMESTAMPTZ,
    closed_by       BIGINT REFERENCES users (id) ON DELETE SET NULL,
    note            TEXT
);
CREATE INDEX reports_open ON reports (id DESC) WHERE status = 'open';
CREATE INDEX reports_closed ON reports (id DESC) WHERE status <> 'open';

CREATE TABLE moderation_audit (
    id          BIGSERIAL PRIMARY KEY,
    actor_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL,
    target_kind TEXT NOT NULL,
    target_id   BIGINT,
    reason      TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
"""

    /// Account deletion (`account.delete`: a job row committed first, then bounded batches; `docs/protocol.md`,
    /// "Account deletion and export") and data exports (`account.export`). A deleted user's row stays as a stub
    /// (`deleted_at`, phone replaced so the number can register again) so that others' conversations keep their
    /// rows; its messages become tombstones (`sender_deleted`).
    static let accountLifecycle = """
ALTER TABLE users ADD COLUMN deleted_at TIMESTAMPTZ;
ALTER TABLE messages ADD COLUMN sender_deleted BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE account_deletions (
    user_id      BIGINT PRIMARY KEY REFERENCES users (id),
    requested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    step         TEXT NOT NULL DEFAULT 'requested',
    finished_at  TIMESTAMPTZ
);
CREATE INDEX account_deletions_unfinished ON account_deletions (requested_at) WHERE finished_at IS NULL;

CREATE TABLE data_exports (
    id           BIGSERIAL PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    state        TEXT NOT NULL CHECK (state IN ('building', 'ready', 'failed', 'expired')),
    requested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    ready_at     TIMESTAMPTZ,
    expires_at   TIMESTAMPTZ,
    size         BIGINT,
    file         TEXT,
    error        TEXT
);
CREATE INDEX data_exports_by_user ON data_exports (user_id, requested_at DESC);
CREATE INDEX data_exports_building ON data_exports (requested_at) WHERE state = 'building';
"""
}
