//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Active-hours statistics (issue 22, `docs/protocol.md` "Active hours", `docs/architecture.md` "Active hours"):
    /// per user, local date (in the zone in force when the time was recorded) and hour from local midnight (0-24:
    /// 25-hour days), with the instant that hour starts (seconds since 1970: the same local hour of two zones are two
    /// rows), the connected seconds as a set of second offsets within the hour. Recording is a union (`spans +
    /// new`), so the same second written by two devices, two nodes or a repeated checkpoint counts once.
    public static let v0010ActiveHours = Migration(
        version: 10, name: "active hours",
        sql: """
            CREATE TABLE active_hours (
                user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                day        DATE NOT NULL,
                hour       SMALLINT NOT NULL CHECK (hour BETWEEN 0 AND 24),
                hour_start BIGINT NOT NULL,
                spans      int4multirange NOT NULL,
                PRIMARY KEY (user_id, day, hour, hour_start)
            );
            """
    )
}
