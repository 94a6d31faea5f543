//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

/// The options of `events create` and `events update`.
struct EventOptions: ParsableArguments {
    @Option(help: "Title (1-120 characters).") var title: String?
    @Option(help: "Description.") var description: String?
    @Option(help: "Where it takes place.") var place: String?
    @Option(help: "Start: YYYY-MM-DD HH:MM in --tz, or a timestamp with Z or an offset.") var starts: String?
    @Option(help: "End (same forms; at most 31 days after the start).") var ends: String?
    @Option(help: "Length in minutes (instead of --ends).") var duration: Int?
    @Option(help: "The organiser's IANA time zone (default: TZ, else this machine's).") var tz: String?
    @Option(help: "Places (1-100,000).") var capacity: Int?
    @Flag(help: "Remove the capacity limit (update).") var noCapacity = false

    func fields(_ context: CLIContext) throws(CLIError) -> EventFields {
        try context.eventParameters(
            title: title, description: description, place: place, starts: starts, ends: ends, durationMinutes: duration,
            zone: tz,
            capacity: capacity, noCapacity: noCapacity)
    }
}
