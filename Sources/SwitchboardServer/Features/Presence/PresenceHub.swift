//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

/// Presence: which users are online, away or offline, told to their friends only.
///
/// One serial queue owns the `PresenceTracker`, the friend lists of users with devices and the grace timer.
/// On a user's first device the friend list is loaded (with the friends' last-seen times) and the device
/// gets a `presence.snapshot`; every published change goes to the friends' devices as a `presence` event
/// (conflated per user on slow connections). Events go through the outbox; the grace timer runs on the injected
/// clock.
final class PresenceHub: @unchecked Sendable {
    // @unchecked Sendable: every mutable field below is only touched on `queue` (asserted).
    let queue = DispatchQueue(label: "switchboard.presence")
    let registry: SessionRegistry
    /// Where presence events go.
    let outbox: any Outbox
    let clock: any EngineClock
    let pool: DatabasePool
    let logger: Logger
    let metrics: ServerMetrics
    // protected by queue
    private var tracker: PresenceTracker
    // protected by queue: friends of users with devices on this node (or in their grace period); sorted arrays, not
    // sets: a set of four friends allocates twice the bytes (`SortedIDSet`)
    private var friends: [Int64: SortedIDSet] = [:]
    // protected by queue: for a user, the users of `friends` whose lists hold it (who to tell about a user whose
    // own list is not loaded here: a user with devices on other nodes only)
    private var watchers: [Int64: SortedIDSet] = [:]
    /// In a cluster, this node: presence follows every device of the cluster (the directory reports the other
    /// nodes' devices), and each node tells only its own connections. Nil on a single node.
    let localNode: UInt32?
    // protected by queue: users whose friend list is being loaded, with work waiting for it
    private var loading: [Int64: [() -> Void]] = [:]
    // protected by queue: display names of users with a loaded friend list (for call invitations)
    private var names: [Int64: String] = [:]
    // protected by queue: last-seen times (ISO 8601) learned from the database or from going offline
    private var lastSeen: [Int64: String] = [:]
    private let timer: DeadlineTimer
    /// Told of every device that comes and goes (active-hours statistics); nil in engine tests.
    let activeHours: ActiveHoursRecorder?

    init(
        registry: SessionRegistry, outbox: any Outbox, clock: any EngineClock = SystemClock(), pool: DatabasePool,
        grace: Double,
        metrics: ServerMetrics, logger: Logger, localNode: UInt32? = nil, activeHours: ActiveHoursRecorder? = nil
    ) {
        self.activeHours = activeHours
        self.localNode = localNode
        self.registry = registry
        self.outbox = outbox
        self.clock = clock
        self.metrics = metrics
        self.pool = pool
        self.logger = logger
        tracker = PresenceTracker(grace: UInt64(grace * 1e9))
        timer = DeadlineTimer(queue: queue, clock: clock)
    }

    private func assertOnQueue() { dispatchPrecondition(condition: .onQueue(queue)) }

    static func deviceKey(_ device: Device) -> UInt64 { device.connection.rawValue }

    /// Devices of other nodes came, went or changed status (the cluster's directory; one block for many).
    enum RemoteDeviceChange: Sendable {
        case connected(Device)
        case disconnected(Device)
        case status(Device, PresenceStatus)
    }

    /// Applies other nodes' device changes in order, in one block on the queue.
    func remoteDevicesChanged(_ changes: [RemoteDeviceChange]) {
        if let activeHours {
            for change in changes {
                switch change {
                case .connected(let device): activeHours.connected(device)
                case .disconnected(let device): activeHours.disconnected(device)
                case .status: break
                }
            }
        }
        queue.async { [self] in
            for change in changes {
                switch change {
                case .connected(let device): remoteConnected(device)
                case .disconnected(let device): disconnected(device)
                case .status(let device, let status): setStatus(device, status)
                }
            }
        }
    }

    /// A device of another node is only counted (that node sends its snapshot).
    private func remoteConnected(_ device: Device) {
        assertOnQueue()
        let run = { [self] in
            publish(tracker.connect(userId: device.userId, device: Self.deviceKey(device), now: clock.now()))
        }
        if loading[device.userId] != nil { loading[device.userId]!.append(run) } else { run() }
    }

    /// A device authenticated: publish, and send it its friends' presence. A device of another node is only
    /// counted (that node sends its snapshot).
    func deviceConnected(_ device: Device) {
        activeHours?.connected(device)
        queue.async { [self] in
            if let localNode, device.connection.node != localNode {
                remoteConnected(device)
                return
            }
            withFriends(of: device.userId) { [self] in
                let changes = tracker.connect(userId: device.userId, device: Self.deviceKey(device), now: clock.now())
                sendSnapshot(to: device)
                publish(changes)
            }
        }
    }

    /// A device's connection closed.
    func deviceDisconnected(_ device: Device) {
        activeHours?.disconnected(device)
        queue.async { [self] in disconnected(device) }
    }

    private func disconnected(_ device: Device) {
        assertOnQueue()
        let run = { [self] in
            publish(tracker.disconnect(userId: device.userId, device: Self.deviceKey(device), now: clock.now()))
            armTimer()
        }
        // A disconnect racing with the friend list load waits for it (the connect is queued there too).
        if loading[device.userId] != nil { loading[device.userId]!.append(run) } else { run() }
    }

    /// A device set itself online or away.
    func set(_ device: Device, status: PresenceStatus) {
        queue.async { [self] in setStatus(device, status) }
    }

    private func setStatus(_ device: Device, _ status: PresenceStatus) {
        assertOnQueue()
        let run = { [self] in
            publish(
                tracker.set(userId: device.userId, device: Self.deviceKey(device), status: status, now: clock.now()))
        }
        if loading[device.userId] != nil { loading[device.userId]!.append(run) } else { run() }
    }

    /// Whether `other` is a friend of `userId`, and `userId`'s display name, from the memory of a user with
    /// devices (nil while its friend list is not loaded or failed to load: ask the database).
    func caller(_ userId: Int64, friendOf other: Int64) async -> (friends: Bool, name: String)? {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                guard loading[userId] == nil, let list = friends[userId], let name = names[userId] else {
                    continuation.resume(returning: nil)
                    return
                }
                continuation.resume(returning: (list.contains(other), name))
            }
        }
    }

    /// A user renamed itself.
    func setName(_ name: String, of userId: Int64) {
        queue.async { [self] in if names[userId] != nil { names[userId] = name } }
    }

    /// Two users became friends or stopped being friends.
    func friendshipChanged(_ a: Int64, _ b: Int64, friends areFriends: Bool) {
        queue.async { [self] in
            for (user, other) in [(a, b), (b, a)] {
                guard friends[user] != nil else { continue }
                if areFriends {
                    friends[user]!.insert(other)
                    watchers[other, default: []].insert(user)
                } else {
                    friends[user]!.remove(other)
                    unwatch(other, by: user)
                }
            }
            guard areFriends else { return }
            // Each learns the other's presence at once.
            for (user, other) in [(a, b), (b, a)] {
                let status = tracker.status(of: user)
                guard status != .offline || lastSeen[user] != nil else { continue }
                outbox.post(
                    .ephemeral(event(user, status), source: "p:\(user)"), to: localConnections(ofUsers: [other]))
            }
        }
    }

    // MARK: internals

    private func withFriends(of userId: Int64, _ body: @escaping () -> Void) {
        assertOnQueue()
        if friends[userId] != nil {
            body()
            return
        }
        if loading[userId] != nil {
            loading[userId]!.append(body)
            return
        }
        loading[userId] = [body]
        pool.withConnection(
            on: queue,
            { db in
                let rows = try FriendRepository.friendsLastSeen(db, of: userId)
                let name = try UserRepository.displayName(db, of: userId)
                return (rows, name)
            },
            completion: { [self] result in
                switch result {
                case .success(let (rows, name)):
                    friends[userId] = SortedIDSet(rows.lazy.map(\.0))
                    for (friend, _) in rows { watchers[friend, default: []].insert(userId) }
                    names[userId] = name
                    for (id, seen) in rows where lastSeen[id] == nil { if let seen { lastSeen[id] = seen } }
                case .failure(let error):
                    // Presence degrades to no friends for this device; messaging is unaffected (and calls ask
                    // the database: no name is known).
                    logger.warning(
                        "presence: friend list unavailable",
                        metadata: [LogKey.error: "\(error)", LogKey.userId: "\(userId)"])
                    friends[userId] = SortedIDSet()
                    names[userId] = nil
                }
                for work in loading.removeValue(forKey: userId) ?? [] { work() }
            })
    }

    private func event(_ userId: Int64, _ status: PresenceStatus) -> [UInt8] {
        PresenceUpdate(userId: userId, status: status.rawValue, lastSeen: status == .offline ? lastSeen[userId] : nil)
            .eventJSON
    }

    private func sendSnapshot(to device: Device) {
        assertOnQueue()
        let presence = (friends[device.userId] ?? SortedIDSet()).map { friend in
            let status = tracker.status(of: friend)
            return PresenceUpdate(
                userId: friend, status: status.rawValue, lastSeen: status == .offline ? lastSeen[friend] : nil)
        }
        outbox.post(.event(PresenceSnapshot(presence: presence).eventJSON), to: [device.connection])
    }

    private func publish(_ changes: [PresenceTracker.Change]) {
        assertOnQueue()
        guard !changes.isEmpty else { return }
        metrics.usersAvailable.record(tracker.availableCount)
        var wentOffline: [Int64] = []
        var batch = OutboxBatch()
        for change in changes {
            if change.status == .offline {
                lastSeen[change.userId] = Self.isoNow()
                wentOffline.append(change.userId)
            }
            let bytes = event(change.userId, change.status)
            let source = "p:\(change.userId)"
            let audience = SortedIDSet.union(friends[change.userId], watchers[change.userId])
            batch.add(.ephemeral(bytes, source: source), to: localConnections(ofUsers: audience))
            if change.status == .offline {
                for friend in friends.removeValue(forKey: change.userId) ?? SortedIDSet() {
                    unwatch(friend, by: change.userId)
                }
                names[change.userId] = nil
            }
        }
        outbox.post(batch)
        if !wentOffline.isEmpty {
            let ids = wentOffline
            pool.withConnection(
                on: queue, { db in try UserRepository.touchLastSeen(db, users: ids) },
                completion: { [logger] result in
                    if case .failure(let error) = result {
                        logger.warning(
                            "presence: last seen not stored",
                            metadata: [LogKey.error: "\(error)", "sb.users": "\(ids.count)"])
                    }
                })
        }
    }

    /// The connections of these users that this node serves (all of them on a single node).
    private func localConnections(ofUsers users: some Sequence<Int64>) -> [ConnectionID] {
        let all = registry.connections(ofUsers: users)
        guard let localNode else { return all }
        return all.filter { $0.node == localNode }
    }

    private func unwatch(_ user: Int64, by watcher: Int64) {
        assertOnQueue()
        watchers[user]?.remove(watcher)
        if watchers[user]?.isEmpty == true { watchers[user] = nil }
    }

    static func isoNow() -> String {
        WireTimestamp.now()
    }

    private func armTimer() {
        assertOnQueue()
        timer.arm(tracker.nextDeadline) { [weak self] in self?.tick() }
    }

    private func tick() {
        assertOnQueue()
        publish(tracker.tick(now: clock.now()))
        armTimer()
    }
}
