//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol

// hours, profile set (docs/cli.md, "Active hours and profile settings").
extension CLIContext {
    /// "1 h 05 min", "12 min", "0 min".
    static func duration(_ seconds: Int) -> String {
        let hours = seconds / 3600
        let minutes = (seconds % 3600) / 60
        return hours > 0 ? "\(hours) h \(String(format: "%02d", minutes)) min" : "\(minutes) min"
    }

    /// A bar of up to 24 blocks, one per hour of `seconds` (rounded up so that any activity shows).
    static func bar(_ seconds: Int, scale: Int) -> String {
        guard seconds > 0 else { return "" }
        return String(repeating: "#", count: max(1, min(24, (seconds * 24 + scale - 1) / max(1, scale))))
    }

    /// `hours [DATE] [--user ID]`: without a date, the last 30 days (`stats.active_hours`), one line per day; with
    /// one, that day's hours (`stats.active_day`).
    public func hours(date: String?, userId: Int64?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let client = session.client
            do throws(SwitchboardClientError) {
                if let date {
                    let day = try await client.send(Ops.StatsActiveDay.self, .init(date: date, userId: userId))
                    let fields: [String: JSONValue] = [
                        "date": .string(day.date), "seconds": .int(Int64(day.seconds)),
                        "hours": .array(day.hours.map { .int(Int64($0)) }),
                    ]
                    if case .json = printer.mode {
                        printer.emit(OutputRecord("active_day", fields, text: ""))
                        return
                    }
                    printer.emit(
                        OutputRecord("active_day", fields, text: "\(day.date): \(Self.duration(day.seconds)) in all"))
                    for (hour, seconds) in day.hours.enumerated() where seconds > 0 {
                        printer.emit(
                            OutputRecord(
                                "active_hour", [:],
                                text:
                                    "  \(String(format: "%02d", hour)):00  "
                                    + "\(Self.duration(seconds).padding(toLength: 12, withPad: " ", startingAt: 0)) "
                                    + Self.bar(seconds, scale: 3600)))
                    }
                } else {
                    let series = try await client.send(Ops.StatsActiveHours.self, .init(userId: userId))
                    let days: [JSONValue] = series.days.map {
                        .object(["date": .string($0.date), "seconds": .int(Int64($0.seconds))])
                    }
                    let fields: [String: JSONValue] = [
                        "user_id": .int(series.userId), "time_zone": .string(series.timeZone),
                        "since": .string(series.since),
                        "today": .string(series.today), "days": .array(days),
                    ]
                    let total = series.days.reduce(0) { $0 + $1.seconds }
                    printer.emit(
                        OutputRecord(
                            "active_hours", fields,
                            text:
                                """
                                active hours of user \(series.userId), last \(series.days.count) days \
                                (\(series.timeZone)): \(Self.duration(total))
                                """
                        ))
                    guard case .human = printer.mode else { return }
                    for day in series.days {
                        printer.emit(
                            OutputRecord(
                                "active_hours.day", [:],
                                text:
                                    "  \(day.date)  "
                                    + Self.duration(day.seconds).padding(toLength: 12, withPad: " ", startingAt: 0)
                                    + " "
                                    + Self.bar(day.seconds, scale: 86_400)))
                    }
                }
            } catch {
                throw fail(error, "reading active hours", session.url)
            }
        }
    }

    /// `profile set [--name NAME] [--time-zone ZONE] [--locale TAG]`: `profile.update`.
    public func setProfile(name: String?, timeZone: String?, locale: String?) async throws(CLIError) {
        guard name != nil || timeZone != nil || locale != nil else {
            throw CLIError("give --name, --time-zone or --locale", exitCode: .usage)
        }
        try await withSession { session throws(CLIError) in
            do throws(SwitchboardClientError) {
                let p = try await session.client.send(
                    Ops.ProfileUpdate.self, .init(displayName: name, timeZone: timeZone, locale: locale)
                ).profile
                printer.emit(
                    OutputRecord(
                        "profile",
                        [
                            "user_id": .int(p.userId), "display_name": .string(p.displayName),
                            "time_zone": p.timeZone.map(JSONValue.string) ?? .null,
                            "locale": p.locale.map(JSONValue.string) ?? .null,
                        ],
                        text:
                            """
                            profile saved: \(p.displayName), time zone \(p.timeZone ?? "UTC"), locale \
                            \(p.locale ?? "en-US")
                            """,
                        style: .success))
            } catch {
                throw fail(error, "saving the profile", session.url)
            }
        }
    }
}
