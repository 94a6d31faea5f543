//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// One row per ended call (the call history); the one-to-one conversation also gets a system message.
    public static let v0003Calls = Migration(
        version: 3, name: "calls",
        sql: """
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
    )
}
