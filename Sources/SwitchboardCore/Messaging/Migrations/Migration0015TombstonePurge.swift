//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// The tombstone purge by index: a message deleted for everyone is a tombstone until the retention sweep strips
    /// what deletion left behind (`RetentionRepository.purgeTombstones`), which then marks it `tombstone_purged`.
    /// The partial index holds only the tombstones still waiting for that, oldest deletion first, so a sweep reads
    /// the tombstones it has to purge instead of walking the messages table (it is empty when there is nothing to
    /// do). Adding a column with a constant default does not rewrite the table; building the index reads it once.
    public static let v0015TombstonePurge = Migration(
        version: 15, name: "tombstone purge by index",
        sql: """
            ALTER TABLE messages ADD COLUMN tombstone_purged BOOLEAN NOT NULL DEFAULT false;
            CREATE INDEX messages_tombstones_to_purge ON messages (deleted_at, id)
                WHERE deleted_at IS NOT NULL AND NOT tombstone_purged;
            """
    )
}
