//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
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
        Migration(version: 9, name: "communities, events, courses and notifications", sql: communities),
        Migration(version: 10, name: "active hours", sql: activeHours),
        Migration(version: 11, name: "social: handles, follows, blocks, posts, likes, notifications", sql: social),
        Migration(version: 12, name: "post client ids and a covering author index", sql: postClientIds),
        Migration(version: 13, name: "photos, resumable uploads, avatars, moments and photos in posts", sql: photos),
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

    /// Communities, their members (core members), events and participants, announcements and course lessons with
    /// each member's progress, and the community notifications behind the unread markers (issue 22,
    /// `docs/protocol.md` "Communities"). A user's IANA time zone and BCP 47 locale (calendars, list order, active
    /// hours). Counts (`member_count`, `participant_count`) are kept in the same transaction as the rows they count.
    /// `communities.last_seq` numbers the community's notifications; a member's `read_seq` is the newest one they
    /// have seen, so unread = notifications with a greater seq.
    static let communities = """
ALTER TABLE users ADD COLUMN time_zone TEXT;
ALTER TABLE users ADD COLUMN locale TEXT;

CREATE TABLE communities (
    id           BIGSERIAL PRIMARY KEY,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    category     TEXT NOT NULL DEFAULT '',
    picture      TEXT,
    created_by   BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    archived_at  TIMESTAMPTZ,
    member_count INT NOT NULL DEFAULT 0 CHECK (member_count >= 0),
    last_seq     BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX communities_live_name ON communities (lower(name)) WHERE archived_at IS NULL;

CREATE TABLE community_members (
    community_id BIGINT NOT NULL REFERENCES communities (id) ON DELETE CASCADE,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role         TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'core')),
    joined_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    read_seq     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (community_id, user_id)
);
CREATE INDEX community_members_by_user ON community_members (user_id, community_id);

CREATE TABLE community_events (
    id                BIGSERIAL PRIMARY KEY,
    community_id      BIGINT NOT NULL REFERENCES communities (id) ON DELETE CASCADE,
    title             TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    place             TEXT NOT NULL DEFAULT '',
    starts_at         TIMESTAMPTZ NOT NULL,
    ends_at           TIMESTAMPTZ NOT NULL,
    time_zone         TEXT NOT NULL,
    capacity          INT CHECK (capacity IS NULL OR capacity > 0),
    participant_count INT NOT NULL DEFAULT 0 CHECK (participant_count >= 0),
    created_by        BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    cancelled_at      TIMESTAMPTZ,
    version           INT NOT NULL DEFAULT 1,
    CHECK (ends_at > starts_at)
);
CREATE INDEX community_events_by_start ON community_events (community_id, starts_at, id);

CREATE TABLE event_participants (
    event_id  BIGINT NOT NULL REFERENCES community_events (id) ON DELETE CASCADE,
    user_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    joined_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX event_participants_by_user ON event_participants (user_id, event_id);

CREATE TABLE community_posts (
    id            BIGSERIAL PRIMARY KEY,
    community_id  BIGINT NOT NULL REFERENCES communities (id) ON DELETE CASCADE,
    author_id     BIGINT REFERENCES users (id) ON DELETE SET NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('announcement', 'lesson')),
    position      INT,
    title         TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL DEFAULT '',
    voice_clip_id BIGINT REFERENCES voice_clips (id) ON DELETE SET NULL,
    video_url     TEXT,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    deleted_at    TIMESTAMPTZ,
    CHECK ((kind = 'lesson') = (position IS NOT NULL))
);
CREATE INDEX community_posts_by_community ON community_posts (community_id, kind, id DESC);
CREATE UNIQUE INDEX community_lessons_by_position ON community_posts (community_id, position) WHERE kind = 'lesson' AND deleted_at IS NULL;

CREATE TABLE lesson_progress (
    post_id      BIGINT NOT NULL REFERENCES community_posts (id) ON DELETE CASCADE,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    completed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, post_id)
);
CREATE INDEX lesson_progress_by_post ON lesson_progress (post_id);

CREATE TABLE community_notifications (
    community_id BIGINT NOT NULL REFERENCES communities (id) ON DELETE CASCADE,
    seq          BIGINT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('event.published', 'event.changed', 'event.cancelled', 'announcement', 'lesson')),
    event_id     BIGINT REFERENCES community_events (id) ON DELETE CASCADE,
    post_id      BIGINT REFERENCES community_posts (id) ON DELETE CASCADE,
    actor_id     BIGINT REFERENCES users (id) ON DELETE SET NULL,
    title        TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (community_id, seq)
);
"""
}

extension Schema {
    /// Active-hours statistics (issue 22, `docs/protocol.md` "Active hours", `docs/architecture.md` "Active hours"):
    /// per user, local date (in the zone in force when the time was recorded) and hour from local midnight (0-24:
    /// 25-hour days), with the instant that hour starts (seconds since 1970: the same local hour of two zones are two
    /// rows), the connected seconds as a set of second offsets within the hour. Recording is a union (`spans +
    /// new`), so the same second written by two devices, two nodes or a repeated checkpoint counts once.
    static let activeHours = """
CREATE TABLE active_hours (
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day        DATE NOT NULL,
    hour       SMALLINT NOT NULL CHECK (hour BETWEEN 0 AND 24),
    hour_start BIGINT NOT NULL,
    spans      int4multirange NOT NULL,
    PRIMARY KEY (user_id, day, hour, hour_start)
);
"""

    /// The social layer (issue 18; `docs/social.md`): handles and profile fields, follows (active or pending for
    /// protected accounts), blocks and mutes, posts (replies and reposts are posts), mentions and hashtags, likes,
    /// and social notifications. `post_clock` is one row: every transaction that creates, reposts or deletes a post
    /// takes the next `seq` from it as its last statement, so the row lock orders those commits and `seq` order is
    /// commit order (timeline cursors and live-page resume rely on it: a reader that sees seq S sees every seq < S).
    static let social = """
ALTER TABLE users ADD COLUMN handle TEXT CHECK (handle ~ '^[A-Za-z0-9_]{3,30}$');
ALTER TABLE users ADD COLUMN bio TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN protected BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN dm_policy TEXT NOT NULL DEFAULT 'friends' CHECK (dm_policy IN ('friends', 'mutuals', 'anyone'));
ALTER TABLE users ADD COLUMN post_count INT NOT NULL DEFAULT 0 CHECK (post_count >= 0);
ALTER TABLE users ADD COLUMN following_count INT NOT NULL DEFAULT 0 CHECK (following_count >= 0);
ALTER TABLE users ADD COLUMN follower_count INT NOT NULL DEFAULT 0 CHECK (follower_count >= 0);
ALTER TABLE users ADD COLUMN social_read_id BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX users_handle ON users (lower(handle)) WHERE handle IS NOT NULL;

CREATE TABLE follows (
    id          BIGSERIAL UNIQUE,
    follower_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    followee_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    state       TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'pending')),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (follower_id, followee_id),
    CHECK (follower_id <> followee_id)
);
CREATE INDEX follows_following ON follows (follower_id, state, id DESC);
CREATE INDEX follows_followers ON follows (followee_id, state, id DESC);

CREATE TABLE blocks (
    blocker_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    blocked_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);
CREATE INDEX blocks_blocked ON blocks (blocked_id);

CREATE TABLE mutes (
    muter_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    muted_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (muter_id, muted_id),
    CHECK (muter_id <> muted_id)
);

CREATE TABLE post_clock (
    one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    seq BIGINT NOT NULL
);
INSERT INTO post_clock (one, seq) VALUES (true, 0);

CREATE TABLE posts (
    id            BIGSERIAL PRIMARY KEY,
    seq           BIGINT NOT NULL UNIQUE,
    author_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    text          TEXT NOT NULL DEFAULT '',
    reply_to      BIGINT REFERENCES posts (id) ON DELETE SET NULL,
    reply_to_user BIGINT REFERENCES users (id) ON DELETE SET NULL,
    thread_root   BIGINT,
    repost_of     BIGINT REFERENCES posts (id) ON DELETE CASCADE,
    voice_clip_id BIGINT REFERENCES voice_clips (id) ON DELETE SET NULL,
    like_count    INT NOT NULL DEFAULT 0 CHECK (like_count >= 0),
    repost_count  INT NOT NULL DEFAULT 0 CHECK (repost_count >= 0),
    reply_count   INT NOT NULL DEFAULT 0 CHECK (reply_count >= 0),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    deleted_at    TIMESTAMPTZ,
    deleted_seq   BIGINT UNIQUE,
    CHECK (repost_of IS NULL OR reply_to IS NULL)
);
CREATE INDEX posts_by_author ON posts (author_id, seq DESC) WHERE deleted_at IS NULL;
CREATE INDEX posts_by_author_originals ON posts (author_id, seq DESC) WHERE deleted_at IS NULL AND reply_to IS NULL;
CREATE INDEX posts_replies ON posts (reply_to, seq) WHERE reply_to IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX posts_thread ON posts (thread_root, seq) WHERE thread_root IS NOT NULL;
CREATE UNIQUE INDEX posts_one_repost ON posts (author_id, repost_of) WHERE repost_of IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX posts_reposts_of ON posts (repost_of) WHERE repost_of IS NOT NULL AND deleted_at IS NULL;

CREATE TABLE post_mentions (
    post_id BIGINT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seq     BIGINT NOT NULL,
    PRIMARY KEY (post_id, user_id)
);
CREATE INDEX post_mentions_by_user ON post_mentions (user_id, seq DESC);

CREATE TABLE post_hashtags (
    post_id BIGINT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    seq     BIGINT NOT NULL,
    PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_hashtags_by_tag ON post_hashtags (tag, seq DESC);

CREATE TABLE likes (
    id         BIGSERIAL UNIQUE,
    post_id    BIGINT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (post_id, user_id)
);
CREATE INDEX likes_by_user ON likes (user_id, id DESC);

CREATE TABLE social_notifications (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('follow', 'follow_request', 'like', 'repost', 'reply', 'mention')),
    actor_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    post_id    BIGINT REFERENCES posts (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE NULLS NOT DISTINCT (user_id, kind, actor_id, post_id)
);
CREATE INDEX social_notifications_by_user ON social_notifications (user_id, id DESC);
"""

    /// `post.create`'s optional `client_id`: a resend with the same id returns the post it already made (like
    /// `messages.send`), so a client may resend after a failure or a reconnect without posting twice. And the
    /// author index of the home merge made covering: each followee's probe is an index-only scan (the columns the
    /// home rules filter on are in the index), which halved the home page on the 1,000,000-post data set
    /// (`docs/social.md`).
    static let postClientIds = """
ALTER TABLE posts ADD COLUMN client_id TEXT;
CREATE UNIQUE INDEX posts_client_id ON posts (author_id, client_id) WHERE client_id IS NOT NULL;
DROP INDEX posts_by_author;
CREATE INDEX posts_by_author ON posts (author_id, seq DESC) INCLUDE (id, reply_to, reply_to_user, repost_of) WHERE deleted_at IS NULL;
"""

    /// Issue 19 (`docs/photos.md`): photos (the renditions only: the original is never kept, it carries the
    /// metadata), resumable uploads (tus 1.0, their chunks as rows so a PATCH may reach any node), avatars, moments
    /// shared with friends and their likes, and up to four photos per post. Moments and photos are deleted for real;
    /// the cascades take a deleted photo out of moments and posts and clear an avatar.
    static let photos = """
CREATE TABLE photos (
    id            BIGSERIAL PRIMARY KEY,
    owner_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    sha256        BYTEA NOT NULL,
    format        TEXT NOT NULL CHECK (format IN ('jpeg', 'png', 'webp', 'heic')),
    width         INT NOT NULL CHECK (width > 0),
    height        INT NOT NULL CHECK (height > 0),
    color         TEXT NOT NULL,
    has_alpha     BOOLEAN NOT NULL DEFAULT false,
    kept_metadata BOOLEAN NOT NULL DEFAULT false,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (owner_id, sha256)
);
CREATE INDEX photos_by_owner ON photos (owner_id, id DESC);

CREATE TABLE photo_renditions (
    photo_id BIGINT NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
    size     TEXT NOT NULL CHECK (size IN ('display', 'thumb')),
    format   TEXT NOT NULL CHECK (format IN ('webp', 'jpeg')),
    width    INT NOT NULL,
    height   INT NOT NULL,
    bytes    BYTEA NOT NULL,
    sha256   BYTEA NOT NULL,
    PRIMARY KEY (photo_id, size, format)
);

ALTER TABLE users ADD COLUMN avatar_photo_id BIGINT REFERENCES photos (id) ON DELETE SET NULL;
CREATE INDEX users_avatar ON users (avatar_photo_id) WHERE avatar_photo_id IS NOT NULL;

CREATE TABLE moments (
    id         BIGSERIAL PRIMARY KEY,
    owner_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    caption    TEXT NOT NULL DEFAULT '',
    like_count INT NOT NULL DEFAULT 0 CHECK (like_count >= 0),
    client_id  TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX moments_by_owner ON moments (owner_id, id DESC);
CREATE UNIQUE INDEX moments_client_id ON moments (owner_id, client_id) WHERE client_id IS NOT NULL;

CREATE TABLE moment_photos (
    moment_id BIGINT NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    position  SMALLINT NOT NULL CHECK (position >= 0 AND position < 64),
    photo_id  BIGINT NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
    PRIMARY KEY (moment_id, position)
);
CREATE INDEX moment_photos_by_photo ON moment_photos (photo_id);

CREATE TABLE moment_likes (
    moment_id  BIGINT NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (moment_id, user_id)
);
CREATE INDEX moment_likes_recent ON moment_likes (moment_id, created_at DESC, user_id DESC);
CREATE INDEX moment_likes_by_user ON moment_likes (user_id);

CREATE TABLE post_photos (
    post_id  BIGINT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    position SMALLINT NOT NULL CHECK (position >= 0 AND position < 16),
    photo_id BIGINT NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
    PRIMARY KEY (post_id, position)
);
CREATE INDEX post_photos_by_photo ON post_photos (photo_id);

CREATE TABLE uploads (
    id         TEXT PRIMARY KEY,
    owner_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('photo', 'voice')),
    length     BIGINT NOT NULL CHECK (length > 0),
    received   BIGINT NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= length),
    metadata   TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX uploads_by_owner ON uploads (owner_id);
CREATE INDEX uploads_by_age ON uploads (updated_at);

CREATE TABLE upload_chunks (
    upload_id TEXT NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    "offset"  BIGINT NOT NULL CHECK ("offset" >= 0),
    data      BYTEA NOT NULL,
    PRIMARY KEY (upload_id, "offset")
);
"""
}
