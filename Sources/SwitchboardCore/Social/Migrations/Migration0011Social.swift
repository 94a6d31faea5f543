//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// The social layer (issue 18; `docs/social.md`): handles and profile fields, follows (active or pending for
    /// protected accounts), blocks and mutes, posts (replies and reposts are posts), mentions and hashtags, likes,
    /// and social notifications. `post_clock` is one row: every transaction that creates, reposts or deletes a post
    /// takes the next `seq` from it as its last statement, so the row lock orders those commits and `seq` order is
    /// commit order (timeline cursors and live-page resume rely on it: a reader that sees seq S sees every seq < S).
    public static let v0011Social = Migration(
        version: 11, name: "social: handles, follows, blocks, posts, likes, notifications",
        sql: """
            ALTER TABLE users ADD COLUMN handle TEXT CHECK (handle ~ '^[A-Za-z0-9_]{3,30}$');
            ALTER TABLE users ADD COLUMN bio TEXT NOT NULL DEFAULT '';
            ALTER TABLE users ADD COLUMN protected BOOLEAN NOT NULL DEFAULT false;
            ALTER TABLE users ADD COLUMN dm_policy TEXT NOT NULL DEFAULT 'friends'
                CHECK (dm_policy IN ('friends', 'mutuals', 'anyone'));
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
            CREATE INDEX posts_by_author_originals ON posts (author_id, seq DESC)
                WHERE deleted_at IS NULL AND reply_to IS NULL;
            CREATE INDEX posts_replies ON posts (reply_to, seq) WHERE reply_to IS NOT NULL AND deleted_at IS NULL;
            CREATE INDEX posts_thread ON posts (thread_root, seq) WHERE thread_root IS NOT NULL;
            CREATE UNIQUE INDEX posts_one_repost ON posts (author_id, repost_of)
                WHERE repost_of IS NOT NULL AND deleted_at IS NULL;
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
                kind       TEXT NOT NULL
                           CHECK (kind IN ('follow', 'follow_request', 'like', 'repost', 'reply', 'mention')),
                actor_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                post_id    BIGINT REFERENCES posts (id) ON DELETE CASCADE,
                created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                UNIQUE NULLS NOT DISTINCT (user_id, kind, actor_id, post_id)
            );
            CREATE INDEX social_notifications_by_user ON social_notifications (user_id, id DESC);
            """
    )
}
