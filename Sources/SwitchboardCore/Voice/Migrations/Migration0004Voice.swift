//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Transcoded voice recordings (deduplicated per uploader by hash) and the messages that reference them.
    /// (Version 3 is the calls migration.)
    public static let v0004Voice = Migration(
        version: 4, name: "voice clips",
        sql: """
            CREATE TABLE voice_clips (
                id          BIGSERIAL PRIMARY KEY,
                uploader_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                sha256      BYTEA NOT NULL,
                audio       BYTEA NOT NULL,
                duration_ms INT NOT NULL,
                waveform    BYTEA NOT NULL,
                size        INT NOT NULL,
                created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
                UNIQUE (uploader_id, sha256)
            );
            ALTER TABLE messages ADD COLUMN voice_id BIGINT REFERENCES voice_clips (id);
            CREATE INDEX messages_voice ON messages (voice_id) WHERE voice_id IS NOT NULL;
            """
    )
}
