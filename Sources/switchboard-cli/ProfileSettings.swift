//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

#if canImport(Glibc)
import Glibc
#endif

struct ProfileSettings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Show a profile (`profile [@handle|ID]`), or change yours (`profile set`).",
        subcommands: [ProfileShow.self, Set.self], defaultSubcommand: ProfileShow.self)

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set any of your display name, time zone, locale, bio, protected account and DM policy.")
        @OptionGroup var global: Global
        @Option(help: "Display name.") var name: String?
        @Option(name: .customLong("time-zone"), help: "IANA time zone, e.g. Europe/Paris (active hours and calendars).")
        var timeZone: String?
        @Option(help: "BCP 47 locale, e.g. fr-FR.") var locale: String?
        @Option(help: "Bio (≤ 160 characters; empty: none).") var bio: String?
        @Flag(
            inversion: .prefixedNo,
            help: "A protected account: follows are requests you approve, posts only for followers.") var protected:
            Bool?
        @Option(
            name: .customLong("dm-policy"), help: "Who may start a direct conversation: friends, mutuals or anyone.")
        var dmPolicy: String?

        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                let social = bio != nil || protected != nil || dmPolicy != nil
                if name != nil || timeZone != nil || locale != nil || !social {
                    try await context.setProfile(name: name, timeZone: timeZone, locale: locale)
                }
                if social { try await context.setSocialProfile(bio: bio, protected: protected, dmPolicy: dmPolicy) }
                return .ok
            }
        }
    }
}
