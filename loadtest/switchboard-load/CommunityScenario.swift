//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Glibc
import SwitchboardClient
import SwitchboardLoadKit

/// The run's community (issue 22): client 0, made an administrator by `--admin-command`, creates it and publishes
/// events to it; clients 1...`--community-members` are its members (each online: every client of the run holds its
/// connection). Each publication's title carries its send time, so that every member's `community.notification`
/// can be timed (`event_to_notification`) and counted.
struct CommunityPlan: Sendable {
    /// The administrator's client index.
    let admin: Int
    let communityId: Int64
    /// Client indexes of the members.
    let members: [Int]

    /// `lt.<send time ns>.<k>`: the title of publication k.
    static func title(sent: UInt64, k: Int) -> String { RunMarker.make(sent: sent, k: k) }

    /// Runs `command` through `/bin/sh -c` with `{phone}` replaced by `phone`, for at most `timeout` seconds.
    ///
    /// Through `posix_spawn`, not Foundation's `Process`: `Process.run()` crashed the load tester (SIGSEGV in its
    /// spawn, in 2 of about 30 runs of 2,000 users) with thousands of sockets open.
    static func runAdminCommand(_ command: String, phone: String, timeout: Double) throws {
        let line = command.replacingOccurrences(of: "{phone}", with: phone)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("sh"), strdup("-c"), strdup(line), nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        guard spawned == 0 else { throw SetupError(description: "--admin-command could not start (errno \(spawned))") }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR {
                throw SetupError(description: "--admin-command: waitpid failed (errno \(errno))")
            }
            if Date() >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw SetupError(description: "--admin-command did not finish within \(Int(timeout)) s")
            }
            usleep(50_000)
        }
        // Exited normally with status 0 (the low 7 bits are the signal, the next 8 the exit status).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw SetupError(description: "--admin-command ended with wait status \(status)")
        }
    }

    /// Makes client 0 an administrator, creates the community, has the members join it, and publishes two events of
    /// the next hours that the members join in turn (so that their calendars have something to show).
    static func make(harness: Harness, adminCommand: String, members count: Int, concurrency: Int) async throws
        -> CommunityPlan
    {
        let started = Date()
        try runAdminCommand(adminCommand, phone: harness.users[0].phone, timeout: 120)
        let admin = harness.clients[0]
        let communityId: Int64
        do {
            communityId = try await admin.createCommunity(
                name: "load community \(UInt32.random(in: 0...UInt32.max))", description: "switchboard-load",
                category: "load"
            ).communityId
        } catch {
            throw SetupError(description: "communities.create by the administrator: \(error)")
        }
        let members = Array(1...max(1, min(count, harness.clients.count - 1)))
        let failures = Locked([String]())
        await forEach(members.count, limit: concurrency * 2) { k in
            do {
                _ = try await harness.clients[members[k]].joinCommunity(communityId)
            } catch {
                failures.withLock { $0.append("communities.join \(members[k]): \(error)") }
            }
        }
        var eventIds: [Int64] = []
        for h in 1...2 {
            let start = Date().addingTimeInterval(Double(h) * 3600)
            do {
                let e = try await admin.createEvent(
                    community: communityId, title: "load setup event \(h)", startsAt: wire(start),
                    endsAt: wire(start.addingTimeInterval(3600)), timeZone: "UTC")
                eventIds.append(e.eventId)
            } catch {
                failures.withLock { $0.append("events.create: \(error)") }
            }
        }
        let events = eventIds
        if !events.isEmpty {
            await forEach(members.count, limit: concurrency * 2) { k in
                do {
                    _ = try await harness.clients[members[k]].joinEvent(events[k % events.count])
                } catch {
                    failures.withLock { $0.append("events.join \(members[k]): \(error)") }
                }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw SetupError(description: first) }
        note(
            String(
                format: "setup: community #%lld with %d members (all online), %d events joined; %.1f s", communityId,
                members.count, events.count, Date().timeIntervalSince(started)))
        return CommunityPlan(admin: 0, communityId: communityId, members: members)
    }

    static func wire(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        return f.string(from: date)
    }
}

extension Mix {
    /// `events.create` by the administrator: a future event of an hour whose title carries the send time; each
    /// member's `community.notification` is timed by `Harness.handle` (`event_to_notification`).
    func publishEvent(_ k: Int) async {
        guard let plan = community else { return }
        // After a kill the administrator may be failing over: wait for it (at most 5 s) rather than skip a publication.
        for _ in 0..<100 where !harness.isAvailable(plan.admin) { try? await Task.sleep(nanoseconds: 50_000_000) }
        let t0 = now()
        harness.started("event")
        let start = Date().addingTimeInterval(7 * 86400 + Double(k) * 60)
        do {
            let e = try await harness.clients[plan.admin].createEvent(
                community: plan.communityId, title: CommunityPlan.title(sent: t0, k: k),
                startsAt: CommunityPlan.wire(start),
                endsAt: CommunityPlan.wire(start.addingTimeInterval(3600)), timeZone: "UTC", place: "switchboard-load")
            harness.published.withLock { $0[k] = (sent: t0, eventId: e.eventId) }
            harness.succeeded("event")
        } catch {
            harness.fail("event", client: plan.admin, since: t0, error)
        }
    }

    /// `communities.list` (the first page) by a random client.
    func listCommunities(_ k: Int) async {
        guard let client = randomAvailableClient() else { return }
        let t0 = now()
        harness.started("communities_list")
        do {
            _ = try await harness.clients[client].communities(limit: 20)
            harness.record(Metric.communitiesList, client: client, since: t0)
            harness.succeeded("communities_list")
        } catch {
            harness.fail("communities_list", client: client, since: t0, error)
        }
    }

    /// `calendar.get` (month, the user's zone) by a random member (else any client).
    func calendarMonth(_ k: Int) async {
        let client =
            community.flatMap { plan in plan.members.randomElement().flatMap { harness.isAvailable($0) ? $0 : nil } }
            ?? randomAvailableClient()
        guard let client else { return }
        let t0 = now()
        harness.started("calendar")
        do {
            _ = try await harness.clients[client].calendar(range: "month")
            harness.record(Metric.calendarMonth, client: client, since: t0)
            harness.succeeded("calendar")
        } catch {
            harness.fail("calendar", client: client, since: t0, error)
        }
    }

    private func randomAvailableClient() -> Int? {
        for _ in 0..<50 {
            let i = Int.random(in: 0..<harness.clients.count)
            if harness.isAvailable(i) { return i }
        }
        return nil
    }

    /// Notifications of this run's publications that have not reached a member which kept its connection (the
    /// dropped and killed clients are excused: community notifications are not replayed on resume).
    func missingNotifications() -> (count: Int, samples: [String]) {
        guard let plan = community else { return (0, []) }
        let excused = harness.dropped.withLock { $0 }.union(harness.killed.withLock { $0 })
        let expected = plan.members.filter { !excused.contains($0) }
        let published = harness.published.withLock { $0 }
        let receipts = harness.notificationReceipts.withLock { $0 }
        var count = 0
        var samples: [String] = []
        for (k, p) in published.sorted(by: { $0.key < $1.key }) {
            let got = receipts[k] ?? []
            let missing = expected.filter { !got.contains($0) }
            count += missing.count
            if !missing.isEmpty && samples.count < 5 {
                samples.append(
                    """
                    event #\(p.eventId) (publication \(k)): no community.notification at \(missing.count) member(s), \
                    e.g. client \(missing[0])
                    """
                )
            }
        }
        return (count, samples)
    }
}
