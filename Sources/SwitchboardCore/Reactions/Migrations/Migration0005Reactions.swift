//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// One reaction per user per message (a new emoji replaces the old one; `reactions.set`).
    public static let v0005Reactions = Migration(
        version: 5, name: "message reactions",
        sql: """
            CREATE TABLE message_reactions (
                message_id  BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
                user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                emoji       TEXT NOT NULL,
                created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
                PRIMARY KEY (message_id, user_id)
            );
            """
    )
}
