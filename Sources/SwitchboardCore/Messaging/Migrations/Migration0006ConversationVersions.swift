//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// The version of a conversation's members and name, bumped by every change of them, so that a process
    /// holding a cached copy learns under the row lock whether another process changed it (see `MessageBatch`).
    public static let v0006ConversationVersions = Migration(
        version: 6, name: "conversation versions",
        sql: """
            ALTER TABLE conversations ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
            """
    )
}
