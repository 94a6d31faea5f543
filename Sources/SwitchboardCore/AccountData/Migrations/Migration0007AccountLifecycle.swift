//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Account deletion (`account.delete`: a job row committed first, then bounded batches; `docs/protocol.md`,
    /// "Account deletion and export") and data exports (`account.export`). A deleted user's row stays as a stub
    /// (`deleted_at`, phone replaced so the number can register again) so that others' conversations keep their
    /// rows; its messages become tombstones (`sender_deleted`).
    public static let v0007AccountLifecycle = Migration(
        version: 7, name: "account deletion and data export",
        sql: """
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
    )
}
