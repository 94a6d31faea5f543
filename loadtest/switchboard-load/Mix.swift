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
import SwitchboardTransport

/// The scenario mix: one open-loop schedule per kind of operation, and the mid-run drop.
final class Mix: Sendable {
    let harness: Harness
    let options: RunOptions
    let loginConfiguration: ClientConfiguration
    let group: EventLoopGroup
    /// Operations that failed only because the drop or a kill cut their connection (not counted as errors).
    var interrupted: Locked<[String: Int]> { harness.interrupted }
    /// The processes the kill switch signalled, and when.
    let kills = Locked([KillRecord]())
    /// Conversation id -> the latest message acknowledged in it and the client that sent it (what reactions and
    /// reports go to).
    private let latestMessage = Locked([Int64: (id: Int64, sender: Int)]())
    /// Conversation id -> the message the mix pinned there and the client that pinned it (that client unpins it
    /// next, on the same connection, so the unpin follows the pin: at most one pin of the mix per conversation).
    private let pinnedByMix = Locked([Int64: (messageId: Int64, client: Int)]())
    /// Clients with a text message acknowledged in this run (whose exports hold something of the run).
    private let senders = Locked(Set<Int>())
    /// Reports per client, under the server's per-user limit (`--reports-per-user`).
    private let reporters: Locked<QuotaRoundRobin>
    /// Exports: whose turn (round-robin under `--exports-per-user`) and which clients have one building.
    private let exporters: Locked<(turns: QuotaRoundRobin, busy: Set<Int>)>
    /// Client index -> whether its device is set away.
    private let away = Locked(Set<Int>())
    /// Users with a login under way (lock order: `away`, then `loggingIn`).
    private let loggingIn = Locked(Set<Int>())
    /// The next user to consider for a login (lock order: `away`, `loggingIn`, `loginCursor`).
    private let loginCursor = Locked(0)
    private let voiceClips: [[UInt8]]
    /// Deletions: the close of each deleted account's connection (its reason), by operation index.
    private let deletionsClosed = Rendezvous<String>()
    /// The phone numbers of the users made to be deleted: a random block of this run.
    private let deletionPhoneBase = Int.random(in: 1_000_000...8_000_000)
    /// The run's community (nil without `--admin-command`: no events are published).
    let community: CommunityPlan?
    /// The run's social graph (nil with `--no-social`: no posts, timelines, likes or follows).
    let social: SocialPlan?

    /// The options of `run` that the mix needs.
    struct RunOptions: Sendable {
        var duration, directRate, groupRate, historyRate, reactionRate, typingRate, presenceRate, loginRate, callRate,
            voiceRate: Double
        var voiceSeconds, ringTimeout, dropShare, dropAt, dropEvery: Double
        var textSize: Int
        var reportRate, exportRate, exportTimeout, deleteRate: Double
        var downloadExports: Bool
        var eventRate, communityListRate, calendarRate: Double
        var postRate, timelineRate, likeRate, followRate: Double
        var pinRate: Double
    }

    init(
        harness: Harness, options command: RunCommand, loginConfiguration: ClientConfiguration, group: EventLoopGroup,
        community: CommunityPlan? = nil, social: SocialPlan? = nil
    ) {
        self.harness = harness
        self.community = community
        self.social = social
        options = RunOptions(
            duration: command.duration, directRate: command.directRate, groupRate: command.groupRate,
            historyRate: command.historyRate, reactionRate: command.reactionRate, typingRate: command.typingRate,
            presenceRate: command.presenceRate,
            loginRate: command.loginRate, callRate: command.callRate, voiceRate: command.voiceRate,
            voiceSeconds: command.voiceSeconds, ringTimeout: command.ringTimeout, dropShare: command.dropShare,
            dropAt: command.dropAt, dropEvery: command.dropEvery, textSize: command.textSize,
            reportRate: command.reportRate,
            exportRate: command.exportRate,
            exportTimeout: command.exportTimeout, deleteRate: command.deleteRate,
            downloadExports: command.downloadExports,
            eventRate: command.eventRate, communityListRate: command.communityListRate,
            calendarRate: command.calendarRate,
            postRate: command.postRate, timelineRate: command.timelineRate, likeRate: command.likeRate,
            followRate: command.followRate, pinRate: command.pinRate)
        reporters = Locked(QuotaRoundRobin(quota: command.reportsPerUser))
        exporters = Locked((turns: QuotaRoundRobin(quota: command.exportsPerUser), busy: []))
        var configuration = loginConfiguration
        configuration.reconnect = .disabled
        configuration.establishBaseline = false
        configuration.resumeMessages = false
        self.loginConfiguration = configuration
        self.group = group
        // A few distinct recordings; each upload still changes one sample so none is deduplicated.
        voiceClips =
            command.voiceRate > 0 ? (0..<4).map { SyntheticSpeech.wav(seconds: command.voiceSeconds, variant: $0) } : []
    }

    /// The metrics this mix is meant to produce (a budgeted one with no samples fails the run).
    var expectedMetrics: Set<String> {
        var m = Set<String>()
        if options.directRate > 0 || options.groupRate > 0 { m.formUnion([Metric.sendToAck, Metric.sendToDelivery]) }
        if options.historyRate > 0 { m.insert(Metric.historyPage) }
        if options.reactionRate > 0 && (options.directRate > 0 || options.groupRate > 0) {
            m.insert(Metric.reactionSet)
        }
        if options.pinRate > 0 && (options.directRate > 0 || options.groupRate > 0) { m.insert(Metric.pinToggle) }
        if options.typingRate > 0 { m.insert(Metric.typingToPeer) }
        let sends = options.directRate > 0 || options.groupRate > 0
        if options.reportRate > 0 && sends { m.insert(Metric.reportCreate) }
        if options.exportRate > 0 && sends { m.insert(Metric.exportReady) }
        if options.exportRate > 0 && sends && options.downloadExports { m.insert(Metric.exportDownload) }
        if options.deleteRate > 0 { m.insert(Metric.deleteToClosed) }
        if options.eventRate > 0, let c = community, !c.members.isEmpty { m.insert(Metric.eventToNotification) }
        if options.communityListRate > 0 { m.insert(Metric.communitiesList) }
        if options.calendarRate > 0 { m.insert(Metric.calendarMonth) }
        if social != nil {
            if options.postRate > 0 { m.formUnion([Metric.postCreate, Metric.postToLive]) }
            if options.timelineRate > 0 { m.insert(Metric.timelineHome) }
            if options.likeRate > 0 && options.postRate > 0 { m.insert(Metric.postLike) }
            if options.followRate > 0 { m.insert(Metric.follow) }
        }
        if options.presenceRate > 0 { m.insert(Metric.presenceToFriend) }
        if options.loginRate > 0 { m.insert(Metric.login) }
        if options.voiceRate > 0 { m.formUnion([Metric.upload, Metric.uploadToDelivery]) }
        let calls = Int(options.callRate * options.duration)
        if calls >= 1 { m.insert(Metric.inviteToRing) }
        if calls >= 1 { m.formUnion([Metric.acceptToCallerTold, Metric.signalRelay, Metric.hangupToPeerTold]) }
        if calls >= 2 { m.insert(Metric.declineToCallerTold) }
        if calls >= 3 && options.ringTimeout > 0 { m.insert(Metric.timeoutToCallerTold) }
        return m
    }

    /// Runs every schedule from `start` for the duration.
    func run(start: UInt64) async {
        let o = options
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                await self.schedule("send_direct", rate: o.directRate, start: start) {
                    await self.sendText($0, group: false)
                }
            }
            tasks.addTask {
                await self.schedule("send_group", rate: o.groupRate, start: start) {
                    await self.sendText($0, group: true)
                }
            }
            tasks.addTask {
                await self.schedule("history", rate: o.historyRate, start: start) { await self.history($0) }
            }
            tasks.addTask {
                await self.schedule("reaction", rate: o.reactionRate, start: start) { await self.reaction($0) }
            }
            tasks.addTask { await self.schedule("pin", rate: o.pinRate, start: start) { await self.pinToggle($0) } }
            tasks.addTask { await self.schedule("typing", rate: o.typingRate, start: start) { await self.typing($0) } }
            tasks.addTask {
                await self.schedule("presence", rate: o.presenceRate, start: start) { await self.presence($0) }
            }
            tasks.addTask { await self.schedule("login", rate: o.loginRate, start: start) { await self.login($0) } }
            tasks.addTask { await self.schedule("call", rate: o.callRate, start: start) { await self.call($0) } }
            tasks.addTask { await self.schedule("voice", rate: o.voiceRate, start: start) { await self.voice($0) } }
            tasks.addTask { await self.schedule("report", rate: o.reportRate, start: start) { await self.report($0) } }
            tasks.addTask { await self.schedule("export", rate: o.exportRate, start: start) { await self.export($0) } }
            tasks.addTask {
                await self.schedule("delete", rate: o.deleteRate, start: start) { await self.deletion($0) }
            }
            if community != nil {
                tasks.addTask {
                    await self.schedule("event", rate: o.eventRate, start: start) { await self.publishEvent($0) }
                }
            }
            tasks.addTask {
                await self.schedule("communities_list", rate: o.communityListRate, start: start) {
                    await self.listCommunities($0)
                }
            }
            tasks.addTask {
                await self.schedule("calendar", rate: o.calendarRate, start: start) { await self.calendarMonth($0) }
            }
            if social != nil {
                tasks.addTask {
                    await self.schedule("post", rate: o.postRate, start: start) { await self.createPost($0) }
                }
                tasks.addTask {
                    await self.schedule("timeline_home", rate: o.timelineRate, start: start) { await self.homePage($0) }
                }
                tasks.addTask {
                    await self.schedule("like", rate: o.likeRate, start: start) { await self.likePost($0) }
                }
                tasks.addTask {
                    await self.schedule("follow", rate: o.followRate, start: start) { await self.followToggle($0) }
                }
            }
            if o.dropShare > 0 {
                tasks.addTask {
                    // The first drop at --drop-at of the duration; with --drop-every, again every so many seconds
                    // while at least a drop's worth of the run is left for the clients to recover in.
                    var at = o.duration * o.dropAt
                    repeat {
                        await self.drop(at: start + UInt64(at * 1e9))
                        at += o.dropEvery
                    } while o.dropEvery > 0 && at <= o.duration - min(o.dropEvery, 30)
                }
            }
            if let plan = harness.killPlan {
                tasks.addTask { await self.kill(plan, start: start) }
            }
        }
    }

    /// Starts `action(k)` for every operation k when it is due (open loop: each in its own task).
    private func schedule(_ op: String, rate: Double, start: UInt64, action: @escaping @Sendable (Int) async -> Void)
        async
    {
        guard rate > 0 else { return }
        var pacer = Pacer(rate: rate, start: start, duration: options.duration, phase: Pacer.phase(of: op))
        harness.planned(op, pacer.planned)
        while true {
            let (due, next) = pacer.take(now: now())
            for k in due { Task { await action(k) } }
            guard let next else { return }
            let t = now()
            if next > t { try? await Task.sleep(nanoseconds: next - t) }
        }
    }

    // MARK: picking clients

    /// A random client that may act now (not recovering from a drop).
    private func pickClient(where condition: (Int) -> Bool = { _ in true }) -> Int? {
        for _ in 0..<50 {
            let i = Int.random(in: 0..<harness.clients.count)
            if harness.isAvailable(i) && condition(i) { return i }
        }
        return nil
    }

    /// Records a failure; one whose connection the drop or a kill cut counts as interrupted instead.
    private func fail(_ op: String, client: Int, since start: UInt64, _ error: SwitchboardClientError) {
        harness.fail(op, client: client, since: start, error)
    }

    // MARK: operations

    private func sendText(_ k: Int, group: Bool) async {
        let op = group ? "send_group" : "send_direct"
        guard let (client, conversation) = pickConversation(group: group) else { return }
        let t0 = now()
        harness.started(op)
        let text = "m\(k) " + String(repeating: "x", count: max(1, options.textSize - 8))
        do {
            let ack = try await harness.clients[client].sendText(
                text, to: .conversation(conversation.id), clientId: "lt.\(t0).\(k)")
            harness.record(Metric.sendToAck, client: client, since: t0)
            harness.ledger.withLock {
                $0.acknowledged(client: client, conversationId: ack.conversationId, seq: ack.seq)
            }
            latestMessage.withLock { $0[ack.conversationId] = (ack.messageId, client) }
            senders.withLock { _ = $0.insert(client) }
            harness.succeeded(op)
        } catch {
            fail(op, client: client, since: t0, error)
        }
    }

    /// A client that may act and one of its conversations: a random group and one of its members, or a
    /// random client and one of its one-to-one conversations.
    private func pickConversation(group: Bool) -> (Int, LoadConversation)? {
        for _ in 0..<50 {
            if group {
                guard let index = harness.groupIndexes.randomElement() else { return nil }
                let c = harness.conversations[index]
                guard let m = c.members.randomElement() else { return nil }
                if harness.isAvailable(m) { return (m, c) }
            } else {
                guard let client = pickClient() else { return nil }
                let mine = harness.conversationsOf[client].map { harness.conversations[$0] }.filter { !$0.isGroup }
                if let c = mine.randomElement() { return (client, c) }
            }
        }
        return nil
    }

    private func history(_ k: Int) async {
        guard let client = pickClient(), let index = harness.conversationsOf[client].randomElement() else { return }
        let t0 = now()
        harness.started("history")
        do {
            _ = try await harness.clients[client].history(harness.conversations[index].id, limit: 10)
            harness.record(Metric.historyPage, client: client, since: t0)
            harness.succeeded("history")
        } catch {
            fail("history", client: client, since: t0, error)
        }
    }

    /// `reactions.set` by a member on the latest message acknowledged in one of its conversations (at the
    /// start of the run it waits, at most 2 s, for a conversation with an acknowledged message).
    private func reaction(_ k: Int) async {
        var target: (client: Int, messageId: Int64)?
        for _ in 0..<100 {
            for _ in 0..<20 {
                if let (client, conversation) = pickConversation(group: k % 4 == 0),
                    let messageId = latestMessage.withLock({ $0[conversation.id]?.id })
                {
                    target = (client, messageId)
                    break
                }
            }
            if target != nil { break }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        guard let (client, messageId) = target else { return }
        let t0 = now()
        harness.started("reaction")
        do {
            _ = try await harness.clients[client].react(to: messageId, emoji: ["👍", "❤️", "😂"][k % 3])
            harness.record(Metric.reactionSet, client: client, since: t0)
            harness.succeeded("reaction")
        } catch {
            fail("reaction", client: client, since: t0, error)
        }
    }

    /// `messages.pin` of the latest message acknowledged in a conversation, or, where the mix pinned one,
    /// `messages.unpin` of it by the client that pinned it (at the start of the run it waits, at most 2 s, for a
    /// conversation with an acknowledged message). Group conversations every other time.
    private func pinToggle(_ k: Int) async {
        var action: (client: Int, messageId: Int64, pin: Bool)?
        for _ in 0..<100 {
            for _ in 0..<20 {
                guard let (member, conversation) = pickConversation(group: k % 2 == 0) else { continue }
                action = pinnedByMix.withLock { pinned -> (client: Int, messageId: Int64, pin: Bool)? in
                    if let earlier = pinned.removeValue(forKey: conversation.id) {
                        return (earlier.client, earlier.messageId, false)
                    }
                    guard let latest = latestMessage.withLock({ $0[conversation.id]?.id }) else { return nil }
                    pinned[conversation.id] = (latest, member)
                    return (member, latest, true)
                }
                if action != nil { break }
            }
            if action != nil { break }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        guard let (client, messageId, pin) = action else { return }
        let t0 = now()
        harness.started("pin")
        do {
            if pin {
                _ = try await harness.clients[client].pin(messageId)
            } else {
                _ = try await harness.clients[client].unpin(messageId)
            }
            harness.record(Metric.pinToggle, client: client, since: t0)
            harness.succeeded("pin")
        } catch {
            fail("pin", client: client, since: t0, error)
        }
    }

    /// `report.create` (target_kind message, reasons in turn) by a member on the latest message another member
    /// sent in one of its conversations, each reporter within `--reports-per-user` (at the start of the run it
    /// waits, at most 2 s, for such a message).
    private func report(_ k: Int) async {
        var target: (client: Int, messageId: Int64)?
        for _ in 0..<100 {
            for _ in 0..<20 {
                if let (client, conversation) = pickConversation(group: k % 2 == 0),
                    let latest = latestMessage.withLock({ $0[conversation.id] }), latest.sender != client,
                    reporters.withLock({ $0.charge(client) })
                {
                    target = (client, latest.id)
                    break
                }
            }
            if target != nil { break }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        guard let (client, messageId) = target else { return }
        let t0 = now()
        harness.started("report")
        do {
            _ = try await harness.clients[client].report(
                message: messageId, reason: ["spam", "harassment", "other"][k % 3], text: "switchboard-load \(k)")
            harness.record(Metric.reportCreate, client: client, since: t0)
            harness.succeeded("report")
        } catch {
            fail("report", client: client, since: t0, error)
        }
    }

    /// `account.export` by a client that sent messages in this run (in turn, within `--exports-per-user`, one
    /// at a time each), timed to its `account.export_ready`; then the archive's download (`GET /export/ID`).
    /// At the start of the run it waits, at most 2 s, for a sender.
    private func export(_ k: Int) async {
        var picked: Int?
        for _ in 0..<100 {
            let eligible = senders.withLock { $0 }.filter { harness.isAvailable($0) }
            picked = exporters.withLock { e -> Int? in
                guard
                    let i = e.turns.pick(
                        count: harness.clients.count, busy: e.busy, eligible: { eligible.contains($0) })
                else { return nil }
                e.busy.insert(i)
                return i
            }
            if picked != nil { break }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        guard let client = picked else { return }
        defer { exporters.withLock { _ = $0.busy.remove(client) } }
        let t0 = now()
        harness.started("export")
        do throws(SwitchboardClientError) {
            let info = try await harness.clients[client].requestExport()
            guard let ready = await harness.exportsReady.wait(info.exportId, timeout: options.exportTimeout) else {
                // No event in time (a connection the drop cut loses it: interrupted, not an error).
                throw SwitchboardClientError.timeout(op: "account.export_ready")
            }
            guard ready.value == "ready" else {
                harness.failed(
                    "export", code: "export_\(ready.value)", detail: "export \(info.exportId) ended \(ready.value)")
                return
            }
            harness.record(Metric.exportReady, client: client, from: t0, to: ready.at)
            if options.downloadExports {
                let t1 = now()
                let archive = try await harness.clients[client].downloadExport(
                    info.exportId, timeout: options.exportTimeout)
                guard archive.count >= 2, archive[0] == 0x1f, archive[1] == 0x8b else {
                    harness.failed(
                        "export", code: "export_not_gzip",
                        detail: "export \(info.exportId): \(archive.count) bytes, not gzip")
                    return
                }
                harness.record(Metric.exportDownload, client: client, since: t1)
            }
            harness.succeeded("export")
        } catch {
            fail("export", client: client, since: t0, error)
        }
    }

    /// Account deletion, with two users made for it (never the run's own): A and B register, become friends, A
    /// sends B three messages, then A deletes its account; timed from `account.delete` to the close of A's
    /// connection with 4005, after the `account.deleted` event (`delete_to_closed`). B keeps A's messages as
    /// tombstones; neither is one of the run's clients, so the run's deliveries and presence are untouched.
    private func deletion(_ k: Int) async {
        var configuration = loginConfiguration
        configuration.endpoint = await harness.clients[k % harness.clients.count].currentEndpoint
        let loop = group.loops[k % group.loops.count]
        let a: SwitchboardClient, b: SwitchboardClient
        harness.started("delete")
        do {
            a = try SwitchboardClient(configuration: configuration, loop: loop)
            b = try SwitchboardClient(configuration: configuration, loop: loop)
        } catch {
            harness.failed("delete", code: "client", detail: "\(error)")
            return
        }
        let key = Int64(k)
        // A's events: `account.deleted`, then the 4005 close, then the client stops (`closed`).
        let watcher = Task {
            var deletedEvent = false
            var closeReason = ""
            for await event in a.events {
                switch event {
                case .other(let raw) where raw.name == "account.deleted": deletedEvent = true
                case .disconnected(let reason): closeReason = reason
                case .state(.closed):
                    deletionsClosed.arrived(
                        key, at: now(), deletedEvent ? closeReason : "no account.deleted before \(closeReason)")
                    return
                default: break
                }
            }
        }
        let password = "lt harbor lantern delete"
        do throws(SwitchboardClientError) {
            try await a.connect()
            try await b.connect()
            _ = try await a.register(
                phone: "+1556\(deletionPhoneBase + 2 * k)", password: password, displayName: "load delete \(k)",
                device: "switchboard-load")
            let friend = try await b.register(
                phone: "+1556\(deletionPhoneBase + 2 * k + 1)", password: password, displayName: "load keep \(k)",
                device: "switchboard-load")
            if let request = try await a.requestFriend(userId: friend.userId).request {
                _ = try await b.acceptFriendRequest(request.requestId)
            }
            let conversation = try await a.directConversation(with: friend.userId)
            for j in 0..<3 {
                _ = try await a.sendText(
                    "delete me \(k).\(j)", to: .conversation(conversation.conversationId), clientId: "ld.\(k).\(j)")
            }
            let t0 = now()
            try await a.deleteAccount(password: password)
            guard let closed = await deletionsClosed.wait(key, timeout: options.exportTimeout) else {
                throw SwitchboardClientError.timeout(op: "close 4005 after account.delete")
            }
            if closed.value.hasPrefix("close 4005") {
                harness.recorder.record(Metric.deleteToClosed, nanoseconds: closed.at &- t0)
                harness.succeeded("delete")
            } else {
                harness.failed(
                    "delete", code: "not_4005", detail: "deleted account's connection ended: \(closed.value)")
            }
        } catch {
            harness.failed("delete", error)
        }
        await a.close()
        await b.close()
        watcher.cancel()
        await watcher.value
        deletionsClosed.forget(key)  // a close nobody waited for (a failure before the deletion)
    }

    private func typing(_ k: Int) async {
        guard let client = pickClient(), let index = harness.conversationsOf[client].randomElement() else { return }
        let conversation = harness.conversations[index].id
        let t0 = now()
        harness.typingSent.withLock {
            $0[Harness.TypingKey(conversationId: conversation, userId: harness.users[client].userId)] = t0
        }
        harness.started("typing")
        do {
            try await harness.clients[client].setTyping(conversation)
            harness.succeeded("typing")
        } catch {
            fail("typing", client: client, since: t0, error)
        }
    }

    private func presence(_ k: Int) async {
        // Pick a client without a login under way and toggle it, under the same locks as `login`'s choice.
        var picked: (client: Int, goAway: Bool)?
        for _ in 0..<10 where picked == nil {
            guard let client = pickClient() else { return }
            picked = away.withLock { set -> (Int, Bool)? in
                if loggingIn.withLock({ $0.contains(client) }) { return nil }
                if set.contains(client) {
                    set.remove(client)
                    return (client, false)
                }
                set.insert(client)
                return (client, true)
            }
        }
        guard let (client, goAway) = picked else { return }
        let status: Availability = goAway ? .away : .online
        let t0 = now()
        let serial = harness.presenceSerial.withLock { s -> Int in
            s += 1
            return s
        }
        harness.presenceSent.withLock {
            $0[harness.users[client].userId] = Harness.PresenceMark(status: status.rawValue, sent: t0, serial: serial)
        }
        harness.started("presence")
        do {
            try await harness.clients[client].setPresence(status)
            harness.succeeded("presence")
        } catch {
            fail("presence", client: client, since: t0, error)
        }
    }

    private func login(_ k: Int) async {
        // A user whose device is online (so the login's own device, online too, changes nothing its friends
        // see), kept out of the presence churn until the login's device is gone.
        // A cursor moves past each chosen user, so no phone number logs in again before every other user had
        // its turn (the server allows 5 logins per number, then one per 12 s).
        let n = harness.users.count
        guard
            let index = away.withLock({ away -> Int? in
                loggingIn.withLock { busy -> Int? in
                    loginCursor.withLock { cursor -> Int? in
                        for j in 0..<n where !away.contains((cursor + j) % n) && !busy.contains((cursor + j) % n) {
                            let chosen = (cursor + j) % n
                            busy.insert(chosen)
                            cursor = chosen + 1
                            return chosen
                        }
                        return nil
                    }
                }
            })
        else { return }
        defer { loggingIn.withLock { _ = $0.remove(index) } }
        let user = harness.users[index]
        // The login goes to the server the user's own client is on (after a failover: a live node).
        var configuration = loginConfiguration
        configuration.endpoint = await harness.clients[index].currentEndpoint
        let client: SwitchboardClient
        do {
            client = try SwitchboardClient(configuration: configuration, loop: group.loops[k % group.loops.count])
        } catch {
            harness.started("login")
            harness.failed("login", code: "client", detail: "\(error)")
            return
        }
        harness.started("login")
        do {
            try await client.connect()
            let t0 = now()
            _ = try await client.login(phone: user.phone, password: user.password, device: "switchboard-load login")
            harness.recorder.record(Metric.login, nanoseconds: now() - t0)
            try await client.logout()
            harness.succeeded("login")
        } catch {
            if Harness.isConnectionError(error) && harness.killWindowOpen() {
                harness.interrupt("login")
            } else {
                harness.failed("login", error)
            }
        }
        await client.close()
    }

    private func call(_ k: Int) async {
        // Caller and callee: ring neighbours (friends), neither in a call nor recovering.
        let pair = harness.inCall.withLock { busy -> (Int, Int)? in
            for _ in 0..<50 {
                let a = Int.random(in: 0..<harness.clients.count)
                let b = (a + 1) % harness.clients.count
                if !busy.contains(a) && !busy.contains(b) && harness.isAvailable(a) && harness.isAvailable(b) {
                    busy.insert(a)
                    busy.insert(b)
                    return (a, b)
                }
            }
            return nil
        }
        guard let (caller, callee) = pair else { return }
        let outcomes: [CallOutcome] =
            options.ringTimeout > 0 ? [.answered, .declined, .timeout] : [.answered, .declined]
        await harness.invite(caller: caller, callee: callee, outcome: outcomes[k % outcomes.count], n: k)
    }

    private func voice(_ k: Int) async {
        guard let (client, conversation) = pickConversation(group: false) else { return }
        var clip = voiceClips[k % voiceClips.count]
        // Change one sample (past the 44-byte header) so the upload is never deduplicated.
        let at = 44 + 2 * (k % ((clip.count - 44) / 2))
        clip[at] = UInt8(truncatingIfNeeded: k)
        clip[at + 1] = UInt8(truncatingIfNeeded: k >> 8)
        let t0 = now()
        harness.started("voice")
        do {
            let uploaded = try await harness.clients[client].uploadVoice(clip, contentType: "audio/wav", timeout: 30)
            harness.record(Metric.upload, client: client, since: t0)
            let ack = try await harness.clients[client].sendVoice(
                voiceId: uploaded.voiceId, to: .conversation(conversation.id), clientId: "lv.\(t0).\(k)")
            harness.ledger.withLock {
                $0.acknowledged(client: client, conversationId: ack.conversationId, seq: ack.seq)
            }
            harness.succeeded("voice")
        } catch {
            fail("voice", client: client, since: t0, error)
        }
    }

    /// The recovery check: drops the connection of a share of the clients (none in a call) at `at`.
    private func drop(at: UInt64) async {
        let t = now()
        if at > t { try? await Task.sleep(nanoseconds: at - t) }
        let count = Int((Double(harness.clients.count) * options.dropShare).rounded())
        let chosen = harness.inCall.withLock { busy -> [Int] in
            // The community's administrator keeps its connection: its publications are the timed operation.
            // (With --drop-every, clients still recovering from the previous drop are left alone.)
            let candidates = (0..<harness.clients.count).filter {
                !busy.contains($0) && $0 != community?.admin && harness.isAvailable($0)
            }
            .shuffled().prefix(count)
            let t = now()
            harness.recovering.withLock { for i in candidates { $0[i] = t } }
            harness.lastDrop.withLock { for i in candidates { $0[i] = t } }
            harness.dropped.withLock { $0.formUnion(candidates) }
            return Array(candidates)
        }
        harness.presenceSent.withLock { marks in for i in chosen { marks[harness.users[i].userId] = nil } }
        away.withLock { for i in chosen { $0.remove(i) } }
        note("run: dropping \(chosen.count) connections")
        await withTaskGroup(of: Void.self) { tasks in
            for i in chosen { tasks.addTask { await self.harness.clients[i].dropConnection() } }
        }
    }

    /// The kill switch: SIGKILL to the processes the operator named, at the plan's moment. The clients whose
    /// connections end within the attribution window are the killed nodes' clients (`Harness.attributeToKill`);
    /// after the window, calls they were in are given up as interrupted.
    private func kill(_ plan: KillPlan, start: UInt64) async {
        let at = plan.time(start: start, duration: options.duration)
        let t = now()
        if at > t { try? await Task.sleep(nanoseconds: at - t) }
        let killTime = now()
        harness.killedAt.withLock { $0 = killTime }
        for pid in plan.pids {
            let result = Glibc.kill(pid, SIGKILL) == 0 ? "killed" : String(cString: strerror(errno))
            let record = KillRecord(
                pid: pid, atSeconds: (Double(killTime &- start) / 1e8).rounded() / 10, result: result)
            kills.withLock { $0.append(record) }
            note("run: SIGKILL to \(pid) at \(record.atSeconds) s: \(result)")
        }
        // Within the window, clients whose connection ended are attributed; keep `away` true to the server.
        let deadline = min(killTime + UInt64(plan.attributionWindow * 1e9), start + UInt64(options.duration * 1e9))
        var cleared = Set<Int>()
        while now() < deadline {
            try? await Task.sleep(nanoseconds: 100_000_000)
            let fresh = harness.killed.withLock { $0 }.subtracting(cleared)
            if !fresh.isEmpty {
                away.withLock { for i in fresh { $0.remove(i) } }
                cleared.formUnion(fresh)
            }
        }
        let abandoned = harness.abandonCallsOfKilledClients()
        note(
            """
            run: \(harness.killed.withLock { $0.count }) clients lost their server to the kill; \(abandoned) of their \
            calls given up
            """
        )
    }
}
