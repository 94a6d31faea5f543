//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Migration 1: accounts, sessions and friends.
    public static let v0001AccountsAndFriends = Migration(
        version: 1, name: "accounts, sessions and friends",
        sql: """
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
    )
}
