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

/// A reference to a loop-confined object that may travel to other queues but is only dereferenced on
/// its loop (asserted).
struct LoopBound<T: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read on `loop.queue` (`withValue` asserts it).
    let loop: EventLoop
    private weak var value: T?
    init(_ value: T, loop: EventLoop) {
        self.value = value
        self.loop = loop
    }
    /// Runs `body` on the loop if the object still exists.
    func execute(_ body: @escaping @Sendable (T) -> Void) {
        let me = self
        loop.execute {
            me.loop.assertOnLoop()
            if let v = me.value { body(v) }
        }
    }
}

/// Which connections belong to which user and session, across loops; thread-safe.
final class SessionRegistry: @unchecked Sendable {
    // @unchecked Sendable: `byUser` is only touched under `lock`.
    private let lock = NSLock()
    private var byUser: [Int64: [ObjectIdentifier: (sessionId: Int64, app: LoopBound<ProtocolApplication>)]] = [:]

    func add(_ app: ProtocolApplication, identity: Identity, loop: EventLoop) {
        lock.lock()
        byUser[identity.userId, default: [:]][ObjectIdentifier(app)] = (identity.sessionId, LoopBound(app, loop: loop))
        lock.unlock()
    }

    func remove(_ app: ProtocolApplication, userId: Int64) {
        lock.lock()
        byUser[userId]?[ObjectIdentifier(app)] = nil
        if byUser[userId]?.isEmpty == true { byUser[userId] = nil }
        lock.unlock()
    }

    private func handles(users: [Int64]) -> [(sessionId: Int64, app: LoopBound<ProtocolApplication>)] {
        lock.lock()
        defer { lock.unlock() }
        return Set(users).flatMap { byUser[$0].map { Array($0.values) } ?? [] }
    }

    /// Sends an encoded event to every connected device of these users.
    func push(_ event: PushEvent) {
        let shared = event.bytes
        for handle in handles(users: event.users) {
            handle.app.execute { $0.sendEvent(shared) }
        }
    }

    /// Tells every connection of a session that it was revoked and closes it with 4001.
    func revoke(sessionId: Int64, userId: Int64) {
        for handle in handles(users: [userId]) where handle.sessionId == sessionId {
            handle.app.execute { $0.sessionRevoked() }
        }
    }
}

/// Runs the server's request tasks on a Dispatch queue instead of the shared cooperative pool, so
/// protocol work never waits behind unrelated code that blocks a cooperative thread (in tests, blocking
/// clients in the same process; in embedders, anything). Jobs are short: awaiting the database or the
/// hasher suspends them on continuations resumed from those queues.
final class DispatchTaskExecutor: TaskExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
