//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardTransport

/// Which connections belong to which user and session, across loops; thread-safe. Only the map: deliveries
/// go through an `Outbox`. Kept small per connection: a user's devices are one dictionary value (`SmallDeviceMap`,
/// inline for one device), and a session maps to its user (its devices are that user's with its id).
final class SessionRegistry: @unchecked Sendable {
    // @unchecked Sendable: `byUser` and `userOfSession` are only touched under `lock`.
    private let lock = NSLock()
    // protected by lock: a user's devices by connection (`ConnectionID.rawValue`). Unchecked exclusivity: every
    // access is under the lock and none overlaps another (a fan-out reads it once per recipient).
    @exclusivity(unchecked) private var byUser: [IDKey: SmallDeviceMap<Device>] = [:]
    // protected by lock: the user of every session with a connected device
    private var userOfSession: [Int64: Int64] = [:]
    // protected by lock: how many close sweeps (`sweep(ofUser:)`) have looked the registry up so far
    private var sweeps: UInt64 = 0

    init() {}

    /// Registers an authenticated connection; returns whether it is the user's first device.
    @discardableResult
    func add(_ device: Device) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        userOfSession[device.sessionId] = device.userId
        let first = byUser[IDKey(device.userId)] == nil
        byUser[IDKey(device.userId), default: SmallDeviceMap()][device.connection.rawValue] = device
        return first
    }

    /// Unregisters a connection; returns whether the user has no device left.
    @discardableResult
    func remove(_ connection: ConnectionID, userId: Int64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let removed = byUser[IDKey(userId)]?.removeValue(forKey: connection.rawValue) else {
            return byUser[IDKey(userId)] == nil
        }
        let empty = byUser[IDKey(userId)]?.isEmpty == true
        if empty { byUser[IDKey(userId)] = nil }
        if byUser[IDKey(userId)]?.values.contains(where: { $0.sessionId == removed.sessionId }) != true {
            userOfSession[removed.sessionId] = nil
        }
        return empty
    }

    /// Every connected device of a user.
    func devices(ofUser userId: Int64) -> [Device] {
        lock.lock()
        defer { lock.unlock() }
        return byUser[IDKey(userId)]?.values ?? []
    }

    /// Every connected device of a user, for a sweep that closes them (a revocation, a suspension, a deletion):
    /// counted in `closeSweeps`, in the same critical section as the look-up.
    func sweep(ofUser userId: Int64) -> [Device] {
        lock.lock()
        defer { lock.unlock() }
        sweeps &+= 1
        return byUser[IDKey(userId)]?.values ?? []
    }

    /// How many close sweeps have looked the registry up so far. An authentication reads it before its database
    /// check and again after `add`: unchanged, no sweep can have missed the new connection (`IdentityFeature`,
    /// "A sweep during an authentication").
    var closeSweeps: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return sweeps
    }

    /// Every connected device of these users (each user once).
    func devices(ofUsers users: some Sequence<Int64>) -> [Device] {
        var seen = Set<Int64>()
        return devices(ofDistinctUsers: users.filter { seen.insert($0).inserted })
    }

    /// Every connected device of these users, who are distinct (a conversation's members: the keys of its member
    /// map). No set of the users seen: for a group of 1,000 it was about 400 instructions per delivery.
    func devices(ofDistinctUsers users: [Int64]) -> [Device] {
        var result: [Device] = []
        result.reserveCapacity(users.count)
        lock.lock()
        defer { lock.unlock() }
        for user in users {
            byUser[IDKey(user)]?.forEachValue { result.append($0) }
        }
        return result
    }

    /// The connections of these users (each user once).
    func connections(ofUsers users: some Sequence<Int64>) -> [ConnectionID] {
        devices(ofUsers: users).map(\.connection)
    }

    /// Every connection of a session (a device may reconnect before its old connection is gone).
    func devices(ofSession sessionId: Int64) -> [Device] {
        lock.lock()
        defer { lock.unlock() }
        guard let userId = userOfSession[sessionId], let devices = byUser[IDKey(userId)] else { return [] }
        return devices.values.filter { $0.sessionId == sessionId }
    }

    /// The sessions (devices) of a user with at least one connection.
    func sessions(ofUser userId: Int64) -> Set<Int64> {
        lock.lock()
        defer { lock.unlock() }
        return Set(byUser[IDKey(userId)]?.values.map(\.sessionId) ?? [])
    }

    /// The number of nodes where the user has devices (1 when it has none: the asking node counts).
    func nodeCount(ofUser userId: Int64) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard let devices = byUser[IDKey(userId)] else { return 1 }
        // A user has a few devices: a linear scan, no set allocated on the send path.
        var nodes: [UInt32] = []
        devices.forEachValue { if !nodes.contains($0.connection.node) { nodes.append($0.connection.node) } }
        return max(1, nodes.count)
    }

    /// Whether the user has a connected device.
    func isOnline(_ userId: Int64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return byUser[IDKey(userId)] != nil
    }

    /// Every device on `node` (the connections a node serves, in a cluster).
    func devices(onNode node: UInt32) -> [Device] {
        lock.lock()
        defer { lock.unlock() }
        return byUser.values.flatMap { $0.values.filter { $0.connection.node == node } }
    }

    /// The number of users with at least one device.
    var onlineUserCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return byUser.count
    }
}
