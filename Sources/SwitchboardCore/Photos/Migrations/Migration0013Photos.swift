//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Issue 19 (`docs/photos.md`): photos (the renditions only: the original is never kept, it carries the
    /// metadata), resumable uploads (tus 1.0, their chunks as rows so a PATCH may reach any node), avatars, moments
    /// shared with friends and their likes, and up to four photos per post. Moments and photos are deleted for real;
    /// the cascades take a deleted photo out of moments and posts and clear an avatar.
    public static let v0013Photos = Migration(
        version: 13, name: "photos, resumable uploads, avatars, moments and photos in posts",
        sql: """
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
    )
}
