//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardClient
import SwitchboardLoadKit
import SwitchboardTransport

/// `switchboard-load run`: a population through the real protocol, then a scenario mix at target rates for
/// a duration, measured against budgets.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Create users, friends and groups, run a scenario mix at target rates, judge it against budgets.",
        discussion: """
            Exit status: 0 PASS, 1 FAIL (a budget missed), 2 the run could not be set up.
            The server should allow this many logins from one address (serve --login-burst-per-address),
            and, for calls left to time out, run with a short test ring timeout (serve --ring-timeout S,
            given here as --ring-timeout S); without it no call of the mix is left to time out.
            Several --url (the nodes of a cluster): client i starts on URL i modulo their count and, each time its
            connection ends, reconnects to the next URL in turn and resumes there (--standby-url: after the --url
            ones, never a first choice). --kill-pid PID (repeatable)
            with --kill-at F sends SIGKILL to exactly those processes at F of the mix: the clients that lose
            their connection within 10 s after it must fail over, resume and have every message exactly once.
            """)

    @Option(help: "The servers' WebSocket URLs (repeat for the nodes of a cluster; loopback 127.0.0.0/8 only).")
    var url: [String] = ["ws://127.0.0.1:8080/ws"]
    @Option(
        help:
            """
            A server clients fail over to after the --url ones but never start on (repeatable; an active/standby pair).
            """
    )
    var standbyUrl: [String] = []
    @Option(help: "Users to register (each holds one connection during the run).") var users = 2000
    @Option(help: "Each user befriends the next N users (a ring) and chats with them one-to-one.") var friends = 2
    @Option(help: "Groups (default: one per 20 users).") var groups: Int?
    @Option(help: "Group sizes, used in turn (comma-separated).") var groupSizes = "5,10,50"
    @Option(help: "Seconds of the measured mix.") var duration = 60.0
    @Option(help: "One-to-one text messages per second.") var directRate = 100.0
    @Option(help: "Group text messages per second.") var groupRate = 20.0
    @Option(help: "History pages per second.") var historyRate = 20.0
    @Option(help: "Reactions (reactions.set on a message sent in this run) per second.") var reactionRate = 5.0
    @Option(help: "Pins and unpins (messages.pin/unpin of a conversation's latest message, in turn) per second.")
    var pinRate = 2.0
    @Option(help: "Typing indicators per second.") var typingRate = 20.0
    @Option(help: "Presence changes (away/online) per second.") var presenceRate = 5.0
    @Option(help: "Logins (new sessions) per second.") var loginRate = 2.0
    @Option(help: "Call invitations per second (answered, declined, or left to time out, in turn).") var callRate = 2.0
    @Option(help: "Voice uploads sent as messages per second.") var voiceRate = 0.5
    @Option(help: "Length of each voice recording in seconds.") var voiceSeconds = 3.0
    @Option(help: "Reports (report.create on a message another member sent in this run) per second.") var reportRate =
        0.5
    @Option(help: "Reports one user may make in the run (the server allows 20 an hour: serve --report-rate).")
    var reportsPerUser = 20
    @Option(
        help:
            "Data exports (account.export by a user who sent messages in this run, to account.export_ready) per second."
    )
    var exportRate = 0.05
    @Option(
        help:
            """
            Exports one user may request in the run, users taken in turn (the server allows 3 a day: serve \
            --exports-per-day).
            """
    )
    var exportsPerUser = 3
    @Option(
        help:
            "Seconds to wait for an export's account.export_ready, for its download, and for a deleted account's close."
    )
    var exportTimeout = 15.0
    @Option(
        help:
            """
            Account deletions per second, each of a user registered for it (with a friend, given three messages), to \
            the close 4005.
            """
    )
    var deleteRate = 0.05
    @Flag(inversion: .prefixedNo, help: "Download each ready export (GET /export/ID) and time it.")
    var downloadExports = true
    @Option(
        help: """
            A shell command that makes the run's first user an administrator, {phone} standing for its phone number \
            (e.g. "switchboard admin grant {phone} --data-dir DIR"); that user then creates the run's community and \
            publishes events to it. Without it no community is created and no event published.
            """)
    var adminCommand: String?
    @Option(
        help: "Members of the run's community (users 1...N, all online; default: every user but the administrator).")
    var communityMembers: Int?
    @Option(
        help:
            """
            Events published to the run's community per second (events.create to each member's community.notification).
            """
    )
    var eventRate = 0.2
    @Option(help: "communities.list (first page) per second.") var communityListRate = 2.0
    @Option(help: "calendar.get (month) per second.") var calendarRate = 2.0
    @Flag(
        inversion: .prefixedNo,
        help:
            """
            Social (issue 18): every client takes a handle, follows the next --social-follows clients and keeps its \
            home page live; the mix posts, reads home pages, likes and follows.
            """
    )
    var social = true
    @Option(help: "Clients each client follows (a ring): the home pages a post must reach.") var socialFollows = 5
    @Option(help: "Posts per second (post.create to its reply and to post.new at each live home page that shows it).")
    var postRate = 2.0
    @Option(help: "Home timeline pages (timeline.home, 20 posts) per second.") var timelineRate = 2.0
    @Option(help: "Likes per second (post.like of a post of the run; the counts are checked at the end).")
    var likeRate = 2.0
    @Option(help: "Follows and unfollows per second (outside the ring, in turn per pair).") var followRate = 0.5
    @Option(
        help:
            "The server's ring timeout in seconds, when it runs with a short test one (0: no call is left to time out)."
    )
    var ringTimeout = 0.0
    @Option(help: "Seconds an answered call lasts before the caller hangs up.") var callHold = 1.0
    @Option(help: "Share of the clients whose connection is dropped mid-run (the recovery check).") var dropShare = 0.1
    @Option(help: "When to drop them, as a share of the duration.") var dropAt = 0.5
    @Option(
        help: "Seconds between further drops after the first, each of --drop-share of the clients (0: one drop; soaks)."
    )
    var dropEvery = 0.0
    @Option(help: "Characters per text message.") var textSize = 32
    @Option(help: "Event loops of the generator's clients.") var loops = 1
    @Option(help: "Concurrent registrations during setup.") var concurrency = 32
    @Option(help: "Seconds to wait for in-flight operations and deliveries after the mix.") var drainTimeout = 20.0
    @Option(help: "A budgets file (JSON, any subset of the defaults; see `switchboard-load budgets`).") var budgets:
        String?
    @Option(help: "Write the JSON report to this file.") var report: String?
    @Option(help: "PIDs of the server processes, for their memory and CPU in the report.") var serverPid: [Int32] = []
    @Option(help: "A process to SIGKILL mid-run (a cluster node; repeatable; needs --kill-at). Nothing else is killed.")
    var killPid: [Int32] = []
    @Option(help: "When to kill the --kill-pid processes, as a share of the duration (0 < F < 1).") var killAt: Double?
    @Flag(help: "Offer permessage-deflate.") var compression = false
    @Flag(
        inversion: .prefixedNo,
        help:
            """
            Resume after reconnects (--no-resume: a negative control; the dropped clients then miss messages and the \
            recovery check fails).
            """
    )
    var resume = true
    @Flag(help: "Print the JSON report on stdout instead of the table.") var json = false

    func validate() throws {
        guard !url.isEmpty else { throw ValidationError("--url: at least one") }
        for u in url + standbyUrl {
            guard let c = ClientConfiguration(url: u),
                c.endpoint.host.hasPrefix("127.") || c.endpoint.host == "localhost"
            else {
                throw ValidationError("--url must be ws://127.x.y.z:PORT/ws (load goes to this machine only)")
            }
        }
        if killAt != nil || !killPid.isEmpty {
            guard killAt != nil else { throw ValidationError("--kill-pid needs --kill-at") }
            if case .failure(let e) = makeKillPlan() { throw ValidationError(e.description) }
        }
        guard users >= 4, friends >= 1, duration > 0, duration <= 86_400, loops >= 1, dropShare >= 0, dropShare <= 1,
            dropEvery == 0 || dropEvery >= 10
        else {
            throw ValidationError(
                "--users >= 4, --friends >= 1, 0 < --duration <= 86400, --drop-share in 0...1, --drop-every 0 or >= 10")
        }
        guard postRate >= 0, timelineRate >= 0, likeRate >= 0, followRate >= 0, socialFollows >= 1 else {
            throw ValidationError(
                "--post-rate, --timeline-rate, --like-rate and --follow-rate >= 0, --social-follows >= 1")
        }
        guard eventRate >= 0, communityListRate >= 0, calendarRate >= 0, (communityMembers ?? 1) >= 1 else {
            throw ValidationError(
                "--event-rate, --community-list-rate and --calendar-rate >= 0, --community-members >= 1")
        }
        guard reportRate >= 0, exportRate >= 0, deleteRate >= 0, reportsPerUser >= 1, exportsPerUser >= 1,
            exportTimeout > 0
        else {
            throw ValidationError(
                """
                --report-rate and --export-rate >= 0, --reports-per-user and --exports-per-user >= 1, --export-timeout \
                > 0
                """
            )
        }
        guard parsedGroupSizes().allSatisfy({ $0 >= 3 }), !parsedGroupSizes().isEmpty else {
            throw ValidationError("--group-sizes: comma-separated sizes of at least 3")
        }
    }

    func makeKillPlan() -> Result<KillPlan, KillPlanError> {
        KillPlan.make(pids: killPid, fraction: killAt ?? 0, ownPid: getpid(), parentPid: getppid())
    }

    /// Client `i`'s configuration: its first URL by round-robin, the others in turn, then the standbys, as failover.
    static func configuration(
        client i: Int, base: ClientConfiguration, endpoints: [ServerEndpoint], standbys: [ServerEndpoint]
    ) -> ClientConfiguration {
        var c = base
        let order = Spread.order(client: i, count: endpoints.count)
        c.endpoint = endpoints[order[0]]
        c.alternateEndpoints = order.dropFirst().map { endpoints[$0] } + standbys
        return c
    }

    func parsedGroupSizes() -> [Int] {
        groupSizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func loadBudgets() throws -> Budgets {
        guard let budgets else { return .defaults }
        let data = try Data(contentsOf: URL(fileURLWithPath: budgets))
        return Budgets.defaults.merging(try JSONDecoder().decode(PartialBudgets.self, from: data))
    }

    func run() async throws {
        let budgets: Budgets
        do { budgets = try loadBudgets() } catch {
            note("switchboard-load: cannot read the budgets file: \(error)")
            throw ExitCode(2)
        }
        let endpoints = url.map { ServerEndpoint(url: $0)! }
        let standbys = standbyUrl.map { ServerEndpoint(url: $0)! }
        let killPlan = killAt == nil && killPid.isEmpty ? nil : try? makeKillPlan().get()
        var base = ClientConfiguration(endpoint: endpoints[0])
        base.offerCompression = compression
        base.resumeMessages = resume
        base.requestTimeout = 15
        let group = try EventLoopGroup(loopCount: loops)
        defer { group.shutdown() }
        let baseConfiguration = base
        let population = Population(
            users: users, friends: friends, groups: groups ?? max(1, users / 20), groupSizes: parsedGroupSizes(),
            concurrency: concurrency)
        let setup: Population.Result
        do {
            setup = try await population.create { i in
                try SwitchboardClient(
                    configuration: Self.configuration(
                        client: i, base: baseConfiguration, endpoints: endpoints, standbys: standbys),
                    loop: group.loops[i % group.loops.count])
            }
        } catch {
            note("switchboard-load: setup failed: \(error)")
            throw ExitCode(2)
        }
        let harness = Harness(
            clients: setup.clients, users: setup.users, conversations: setup.conversations, baselines: setup.baselines,
            ringTimeout: ringTimeout, callHold: callHold, killPlan: killPlan)
        for i in 0..<setup.clients.count {
            Task { await harness.consumeEvents(of: i) }
        }
        var community: CommunityPlan?
        if let adminCommand {
            do {
                community = try await CommunityPlan.make(
                    harness: harness, adminCommand: adminCommand, members: communityMembers ?? (users - 1),
                    concurrency: concurrency)
            } catch {
                note("switchboard-load: setup failed: \(error)")
                throw ExitCode(2)
            }
        } else if eventRate > 0 {
            note(
                """
                run: no --admin-command, so no community: events are not published (event_to_notification not measured)
                """
            )
        }
        var socialPlan: SocialPlan?
        if social {
            do {
                socialPlan = try await SocialPlan.make(
                    harness: harness, follows: socialFollows, concurrency: concurrency)
            } catch {
                note("switchboard-load: setup failed: \(error) (a server without the social layer: --no-social)")
                throw ExitCode(2)
            }
        }
        try await Task.sleep(nanoseconds: 1_000_000_000)  // presence snapshots and setup events settle
        // Per process: a killed node is left out of the server's figures (those of the processes alive at the end).
        let serverBeforeEach = Dictionary(
            uniqueKeysWithValues: serverPid.compactMap { p in ProcessStats.read(pid: p).map { (p, $0) } })
        let generatorBefore = ProcessStats.read(pid: getpid())
        let start = now() + 50_000_000
        note(
            String(format: "run: %.0f s mix with %d users", duration, users)
                + (url.count > 1 ? " over \(url.count) servers" : ""))

        let mix = Mix(
            harness: harness, options: self, loginConfiguration: baseConfiguration, group: group, community: community,
            social: socialPlan)
        await mix.run(start: start)
        let mixEnd = now()
        let serverAfterEach = Dictionary(
            uniqueKeysWithValues: serverPid.compactMap { p in ProcessStats.read(pid: p).map { (p, $0) } })
        let survivors = serverPid.filter { serverBeforeEach[$0] != nil && serverAfterEach[$0] != nil }
        func sum(_ each: [Int32: ProcessStats]) -> ProcessStats? {
            survivors.isEmpty
                ? nil
                : survivors.reduce(ProcessStats(rssBytes: 0, cpuSeconds: 0)) {
                    ProcessStats(
                        rssBytes: $0.rssBytes + each[$1]!.rssBytes, cpuSeconds: $0.cpuSeconds + each[$1]!.cpuSeconds)
                }
        }
        let serverBefore = sum(serverBeforeEach), serverAfter = sum(serverAfterEach)
        let generatorAfter = ProcessStats.read(pid: getpid())

        // Drain: operations still running (calls end, sends resend after reconnects), then deliveries.
        let drainDeadline = now() + UInt64((drainTimeout + ringTimeout + callHold) * 1e9)
        while harness.inFlight.withLock({ $0 }) > 0 && now() < drainDeadline {
            if killPlan != nil && !harness.killWindowOpen() { harness.abandonCallsOfKilledClients() }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        let unfinished = harness.inFlight.withLock { $0 }
        if unfinished > 0 {
            harness.operations.withLock { ops in
                // Operations that never completed count as failed.
                ops["unfinished", default: OperationCount()].failed += unfinished
                ops["unfinished", default: OperationCount()].started += unfinished
            }
            harness.errors.withLock { $0["unfinished operations", default: 0] += unfinished }
        }
        while now() < drainDeadline {
            let missing = harness.ledger.withLock { $0.shortfalls() }
            let resuming = harness.recovering.withLock { $0.count }
            if missing.isEmpty && resuming == 0 { break }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        // Every member that kept its connection must have each publication's notification.
        while now() < drainDeadline && mix.missingNotifications().count > 0 {
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        let missing = mix.missingNotifications()
        if missing.count > 0 {
            harness.errors.withLock { $0["event: notification_missing", default: 0] += missing.count }
            harness.errorSamples.withLock { $0.append(contentsOf: missing.samples.prefix(max(0, 20 - $0.count))) }
            harness.operations.withLock { $0["event_delivery", default: OperationCount()].failed += missing.count }
        }
        // Every live home page that kept its connection must have each post of the mix it shows.
        while now() < drainDeadline && mix.missingPostDeliveries().count > 0 {
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        let missingPosts = mix.missingPostDeliveries()
        if missingPosts.count > 0 {
            harness.errors.withLock { $0["post: delivery_missing", default: 0] += missingPosts.count }
            harness.errorSamples.withLock { $0.append(contentsOf: missingPosts.samples.prefix(max(0, 20 - $0.count))) }
            harness.operations.withLock { $0["post_delivery", default: OperationCount()].failed += missingPosts.count }
        }
        // Counts are exact: each post's like_count is the number of likes that succeeded.
        let mismatches = await mix.likeCountMismatches()
        if mismatches.count > 0 {
            harness.errors.withLock { $0["like: count_mismatch", default: 0] += mismatches.count }
            harness.errorSamples.withLock { $0.append(contentsOf: mismatches.samples.prefix(max(0, 20 - $0.count))) }
            harness.operations.withLock { $0["like_count", default: OperationCount()].failed += mismatches.count }
        }
        let droppedSet = harness.dropped.withLock { $0 }
        let killedSet = harness.killed.withLock { $0 }
        let shortfalls = harness.ledger.withLock { $0.shortfalls() }
        let incomplete = Set(shortfalls.map(\.client))
        let recovery = RecoveryResult(
            dropped: droppedSet.count, recovered: droppedSet.subtracting(incomplete).count,
            othersIncomplete: incomplete.subtracting(droppedSet).subtracting(killedSet).count,
            killed: killedSet.count, killedRecovered: killedSet.subtracting(incomplete).count,
            kills: mix.kills.withLock { $0 })
        var duplicatesDropped = 0
        for client in setup.clients { duplicatesDropped += await client.duplicatesDropped }

        // Verdict.
        let latencies = harness.recorder.summaries()
        if let path = ProcessInfo.processInfo.environment["SWITCHBOARD_LOAD_TRACE"] {
            harness.recorder.writeTrace(to: path)
        }
        let operations = harness.operations.withLock { $0 }
        let rows = Verdict.evaluate(
            latencies: latencies, operations: operations, errorsByCode: harness.errors.withLock { $0 },
            recovery: recovery, budgets: budgets, expected: mix.expectedMetrics)
        let passed = Verdict.passed(rows)
        let measuredSeconds = Double(mixEnd - start) / 1e9
        var server: ServerReport?
        if let serverBefore, let serverAfter {
            server = ServerReport(
                pids: survivors, rssBytesBefore: serverBefore.rssBytes, rssBytesAfter: serverAfter.rssBytes,
                cpuSecondsDuringMix: ((serverAfter.cpuSeconds - serverBefore.cpuSeconds) * 100).rounded() / 100,
                cpuPercentDuringMix: ((serverAfter.cpuSeconds - serverBefore.cpuSeconds) / measuredSeconds * 1000)
                    .rounded() / 10)
        }
        let generatorPercent = generatorBefore.flatMap { b in
            generatorAfter.map { a in ((a.cpuSeconds - b.cpuSeconds) / measuredSeconds * 1000).rounded() / 10 }
        }
        let report = RunReport(
            result: passed ? "PASS" : "FAIL", date: ISO8601DateFormatter().string(from: Date()),
            configuration: [
                "url": url.joined(separator: " "), "standby_url": standbyUrl.joined(separator: " "),
                "users": "\(users)", "friends_each_way": "\(friends)", "groups": "\(population.groups)",
                "group_sizes": groupSizes, "duration_s": "\(duration)", "drop_every_s": "\(dropEvery)",
                "direct_rate": "\(directRate)",
                "group_rate": "\(groupRate)", "history_rate": "\(historyRate)", "reaction_rate": "\(reactionRate)",
                "pin_rate": "\(pinRate)", "typing_rate": "\(typingRate)",
                "presence_rate": "\(presenceRate)", "login_rate": "\(loginRate)", "call_rate": "\(callRate)",
                "voice_rate": "\(voiceRate)", "voice_seconds": "\(voiceSeconds)", "report_rate": "\(reportRate)",
                "reports_per_user": "\(reportsPerUser)", "export_rate": "\(exportRate)",
                "exports_per_user": "\(exportsPerUser)",
                "export_timeout_s": "\(exportTimeout)", "delete_rate": "\(deleteRate)", "event_rate": "\(eventRate)",
                "community_members": "\(community?.members.count ?? 0)", "community_list_rate": "\(communityListRate)",
                "calendar_rate": "\(calendarRate)", "social": "\(social)", "social_follows": "\(socialFollows)",
                "post_rate": "\(postRate)",
                "timeline_rate": "\(timelineRate)", "like_rate": "\(likeRate)", "follow_rate": "\(followRate)",
                "download_exports": "\(downloadExports)", "ring_timeout_s": "\(ringTimeout)",
                "drop_share": "\(dropShare)", "drop_at": "\(dropAt)",
                "kill_pids": killPid.map(String.init).joined(separator: " "), "kill_at": killAt.map { "\($0)" } ?? "",
                "compression": "\(compression)", "loops": "\(loops)", "resume": "\(resume)",
            ],
            setup: SetupReport(
                users: users, friendships: setup.friendships, conversations: setup.conversations.count,
                registerSeconds: (setup.registerSeconds * 10).rounded() / 10,
                seconds: (setup.seconds * 10).rounded() / 10),
            measuredSeconds: (measuredSeconds * 100).rounded() / 100,
            latencies: latencies, operations: operations, errors: harness.errors.withLock { $0 },
            errorSamples: harness.errorSamples.withLock { $0 }, interrupted: mix.interrupted.withLock { $0 },
            recovery: recovery, shortfalls: shortfalls.prefix(20).map(\.description),
            messagesStored: harness.ledger.withLock { $0.storedDuringRun },
            duplicatesDroppedByClients: duplicatesDropped,
            server: server, generatorCpuPercentOfACore: generatorPercent, budgets: budgets, rows: rows)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(report)
        if let path = self.report { try data.write(to: URL(fileURLWithPath: path)) }
        if json {
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(summaryLine(report))
            print(Verdict.table(rows))
        }
        for client in setup.clients { await client.close() }
        if !passed { throw ExitCode(1) }
    }

    func summaryLine(_ r: RunReport) -> String {
        var s = String(
            format: "%d users, %.1f s measured: %lld messages stored, %d dropped clients", users, r.measuredSeconds,
            r.messagesStored, r.recovery.dropped)
        if !r.recovery.kills.isEmpty {
            s +=
                "; killed "
                + r.recovery.kills.map { "\($0.pid) at \($0.atSeconds) s (\($0.result))" }.joined(separator: ", ")
            s += ", \(r.recovery.killed) clients failed over"
        }
        if let server = r.server {
            s += String(
                format: "; server CPU %.1f%% of a core, RSS %.0f -> %.0f MiB", server.cpuPercentDuringMix,
                Double(server.rssBytesBefore) / 1_048_576, Double(server.rssBytesAfter) / 1_048_576)
        }
        if let g = r.generatorCpuPercentOfACore { s += String(format: "; load tester CPU %.1f%%", g) }
        if !r.errorSamples.isEmpty { s += "\nfirst errors:\n  " + r.errorSamples.prefix(5).joined(separator: "\n  ") }
        if !r.shortfalls.isEmpty { s += "\nincomplete clients:\n  " + r.shortfalls.prefix(5).joined(separator: "\n  ") }
        return s
    }
}
