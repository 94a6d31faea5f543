//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Active hours' part of account deletion (`active_hours` rows) and of the data export (`active_hours.json`).
public enum ActiveHoursAccountData {
    /// Active-hours statistics.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("active_hours", order: 130) { db, userId, limit in
            try ActiveHoursRepository.deleteBatch(db, userId: userId, limit: limit)
        }
    ]

    private struct ExportedActiveHours: Encodable {
        struct Day: Encodable {
            var date: String
            var seconds: Int64
        }
        var timeZone: String
        var days: [Day]
    }

    /// `active_hours.json`: seconds per local date, in the zones they were recorded in.
    public static let exportSection = AccountExportSection(files: "active_hours.json", order: 70) { c in
        let userId = c.userId
        let hours = try await c.pool.withConnection { db in
            let zone = try ActiveHoursRepository.subject(db, userId: userId)?.timeZone
            let days = try ActiveHoursRepository.series(db, userId: userId).map {
                ExportedActiveHours.Day(date: $0.day, seconds: $0.seconds)
            }
            return ExportedActiveHours(timeZone: zone ?? "UTC", days: days)
        }
        try c.add("active_hours.json", json: hours)
    }
}
