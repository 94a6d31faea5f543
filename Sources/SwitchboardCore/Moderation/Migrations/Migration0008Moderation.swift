//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Administrators, suspensions, reports and the moderation audit log (`docs/moderation.md`). A report's
    /// `target_kind` has room for `post` (posts do not exist yet). Rows of the audit log outlive the accounts
    /// they name (`ON DELETE SET NULL`).
    public static let v0008Moderation = Migration(
        version: 8, name: "administrators and moderation",
        sql: """
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
    )
}
