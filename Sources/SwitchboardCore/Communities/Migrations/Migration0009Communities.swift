//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Communities, their members (core members), events and participants, announcements and course lessons with
    /// each member's progress, and the community notifications behind the unread markers (issue 22,
    /// `docs/protocol.md` "Communities"). A user's IANA time zone and BCP 47 locale (calendars, list order, active
    /// hours). Counts (`member_count`, `participant_count`) are kept in the same transaction as the rows they count.
    /// `communities.last_seq` numbers the community's notifications; a member's `read_seq` is the newest one they
    /// have seen, so unread = notifications with a greater seq.
    public static let v0009Communities = Migration(
        version: 9, name: "communities, events, courses and notifications",
        sql: """
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
            CREATE UNIQUE INDEX community_lessons_by_position ON community_posts (community_id, position)
                WHERE kind = 'lesson' AND deleted_at IS NULL;

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
                kind         TEXT NOT NULL CHECK (kind IN ('event.published', 'event.changed', 'event.cancelled',
                                                       'announcement', 'lesson')),
                event_id     BIGINT REFERENCES community_events (id) ON DELETE CASCADE,
                post_id      BIGINT REFERENCES community_posts (id) ON DELETE CASCADE,
                actor_id     BIGINT REFERENCES users (id) ON DELETE SET NULL,
                title        TEXT NOT NULL,
                created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
                PRIMARY KEY (community_id, seq)
            );
            """
    )
}
