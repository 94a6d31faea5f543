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
import SwitchboardTransport

/// One authenticated connection (a device) of a user.
struct Device: Sendable {
    /// The session (token) the connection authenticated with; stays the same across reconnects.
    let sessionId: Int64
    let userId: Int64
    let app: LoopBound<ProtocolApplication>
    /// Identifies the connection.
    let key: ObjectIdentifier
}

/// Which connections belong to which user and session, across loops; thread-safe.
///
/// Deliveries to many devices are handed to each loop queue in one batch (one `execute` per loop).
final class SessionRegistry: @unchecked Sendable {
    // @unchecked Sendable: `byUser` is only touched under `lock`.
    private let lock = NSLock()
    private var byUser: [Int64: [ObjectIdentifier: Device]] = [:]
    // protected by lock
    private var bySession: [Int64: [ObjectIdentifier: Device]] = [:]

    /// Registers an authenticated connection; returns whether it is the user's first device.
    @discardableResult
    func add(_ app: ProtocolApplication, identity: Identity, loop: EventLoop) -> Bool {
        let key = ObjectIdentifier(app)
        let device = Device(sessionId: identity.sessionId, userId: identity.userId, app: LoopBound(app, loop: loop), key: key)
        lock.lock()
        defer { lock.unlock() }
        let first = byUser[identity.userId] == nil
        byUser[identity.userId, default: [:]][key] = device
        bySession[identity.sessionId, default: [:]][key] = device
        return first
    }

    /// Unregisters a connection; returns whether the user has no device left.
    @discardableResult
    func remove(_ app: ProtocolApplication, userId: Int64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let sessionId = byUser[userId]?[ObjectIdentifier(app)]?.sessionId {
            bySession[sessionId]?[ObjectIdentifier(app)] = nil
            if bySession[sessionId]?.isEmpty == true { bySession[sessionId] = nil }
        }
        byUser[userId]?[ObjectIdentifier(app)] = nil
        if byUser[userId]?.isEmpty == true {
            byUser[userId] = nil
            return true
        }
        return byUser[userId] == nil
    }

    /// Every connected device of a user.
    func devices(ofUser userId: Int64) -> [Device] {
        lock.lock()
        defer { lock.unlock() }
        return byUser[userId].map { Array($0.values) } ?? []
    }

    /// Every connected device of these users (each user once).
    func devices(ofUsers users: some Sequence<Int64>) -> [Device] {
        var seen = Set<Int64>()
        var result: [Device] = []
        lock.lock()
        defer { lock.unlock() }
        for user in users where seen.insert(user).inserted {
            if let devices = byUser[user] { result.append(contentsOf: devices.values) }
        }
        return result
    }

    /// Every connection of a session (a device may reconnect before its old connection is gone).
    func devices(ofSession sessionId: Int64) -> [Device] {
        lock.lock()
        defer { lock.unlock() }
        return bySession[sessionId].map { Array($0.values) } ?? []
    }

    /// The sessions (devices) of a user with at least one connection.
    func sessions(ofUser userId: Int64) -> Set<Int64> {
        lock.lock()
        defer { lock.unlock() }
        return Set(byUser[userId]?.values.map(\.sessionId) ?? [])
    }

    /// Whether the user has a connected device.
    func isOnline(_ userId: Int64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return byUser[userId] != nil
    }

    /// The number of users with at least one device.
    var onlineUserCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return byUser.count
    }

    /// Runs `body` for each device on its loop, one `execute` per loop for the whole list.
    func forEach(_ devices: [Device], _ body: @escaping @Sendable (ProtocolApplication) -> Void) {
        guard !devices.isEmpty else { return }
        if devices.count == 1 {
            devices[0].app.execute(body)
            return
        }
        var byLoop: [ObjectIdentifier: [Device]] = [:]
        for device in devices { byLoop[ObjectIdentifier(device.app.loop), default: []].append(device) }
        for (_, list) in byLoop {
            let loop = list[0].app.loop
            loop.executeBatch {
                for device in list { if let app = device.app.valueOnLoop { body(app) } }
            }
        }
    }

    /// Sends an encoded event (a JSON text message) to these devices.
    func send(_ bytes: [UInt8], to devices: [Device]) {
        forEach(devices) { $0.sendEvent(bytes) }
    }

    /// Sends an encoded event to every connected device of these users.
    func push(_ event: PushEvent) {
        send(event.bytes, to: devices(ofUsers: event.users))
    }

    /// Tells every connection of a session that it was revoked and closes it with 4001.
    func revoke(sessionId: Int64, userId: Int64) {
        forEach(devices(ofUser: userId).filter { $0.sessionId == sessionId }) { $0.sessionRevoked() }
    }
}
