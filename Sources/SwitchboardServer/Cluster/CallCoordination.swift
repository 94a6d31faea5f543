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
import Synchronization

/// Which node coordinates the cluster's calls: every node claims the lease in the `ClusterStore` each
/// `leaseInterval` (the holder renews it, the others learn the holder); the node that gets it takes over
/// (`CallService.takeOver`, with the summary of the calls its predecessor left), and a node that loses it
/// resigns. Also writes the coordinator's summaries of the calls in progress (latest first, coalesced).
///
/// Store calls block on `queue` (never a loop queue, never the call queue).
final class CallCoordination: @unchecked Sendable {
    // @unchecked Sendable: `leading` and `timer` are only touched on `queue` (asserted); `calls` is set once,
    // before `start`.
    let queue = DispatchQueue(label: "switchboard.calls.coordination")
    let node: UInt32
    let bus: any ClusterBus
    let store: any ClusterStore
    let forwarded: ForwardedRequests
    let settings: CallClusterSettings
    let logger: Logger
    /// The call service of this node (set by it).
    weak var calls: CallService?
    /// The lease holder as last read (0: unknown; node numbers start at 1).
    private let holder = Atomic<UInt32>(0)
    // protected by queue: whether this node holds the lease and has taken over
    private var leading = false
    // protected by queue: whether the last claim failed (the store was unreachable)
    private var claimFailed = false
    // protected by queue
    private var timer: (any DispatchSourceTimer)?
    /// The latest summary not written yet (coalesced: only the latest is written).
    private let pendingSummary = Mutex<[UInt8]?>(nil)

    init(
        node: UInt32, bus: any ClusterBus, store: any ClusterStore, forwarded: ForwardedRequests,
        settings: CallClusterSettings, logger: Logger
    ) {
        self.node = node
        self.bus = bus
        self.store = store
        self.forwarded = forwarded
        self.settings = settings
        self.logger = logger
    }

    private func assertOnQueue() { dispatchPrecondition(condition: .onQueue(queue)) }

    /// The node coordinating calls, or nil when unknown (no claim has succeeded yet).
    var coordinator: UInt32? {
        let h = holder.load(ordering: .acquiring)
        return h == 0 ? nil : h
    }

    /// Claims the lease every `leaseInterval` (the first time at once).
    func start() {
        queue.async { [self] in
            let t = DispatchSource.makeTimerSource(queue: queue)
            t.schedule(deadline: .now(), repeating: settings.leaseInterval, leeway: .milliseconds(50))
            t.setEventHandler { [weak self] in self?.beat() }
            timer = t
            t.resume()
        }
    }

    /// Stops claiming; a coordinator writes its last summary and gives the lease up (the next node to claim it
    /// takes over at once).
    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            writeSummary()
            if leading { try? store.releaseCoordinator(node: node) }
            leading = false
        }
    }

    /// One claim, synchronously (the timer's work; tests call it directly).
    func claimNow() { queue.sync { beat() } }

    private func beat() {
        assertOnQueue()
        let h: UInt32
        do {
            h = try store.claimCoordinator(node: node, ttlMilliseconds: Int(settings.leaseTTL * 1000))
        } catch {
            // The holder as last known stays: a short store outage does not stop calls.
            logger.warning("calls: the coordinator lease could not be claimed", metadata: [LogKey.error: "\(error)"])
            claimFailed = true
            return
        }
        defer { claimFailed = false }
        if h == node, !leading {
            let previous: [LiveCallSummary]
            do {
                previous =
                    try store.liveCalls().flatMap { try? JSONDecoder().decode([LiveCallSummary].self, from: Data($0)) }
                    ?? []
            } catch {
                // Retried at the next claim; meanwhile requests are answered `unavailable`.
                logger.warning(
                    "calls: the summary of calls in progress could not be read", metadata: [LogKey.error: "\(error)"])
                holder.store(0, ordering: .releasing)
                return
            }
            leading = true
            logger.notice(
                "calls: this node coordinates the cluster's calls", metadata: ["sb.endedCalls": "\(previous.count)"])
            // The call queue takes over before this node routes requests to itself.
            calls?.takeOver(previous)
        } else if h != node, leading {
            leading = false
            logger.warning("calls: this node lost the coordinator lease", metadata: ["sb.coordinator": "\(h)"])
            calls?.resign()
        } else if h == node, claimFailed {
            // The store is back (and may have lost its data): the summary is written again.
            calls?.republishSummary()
        }
        holder.store(h, ordering: .releasing)
    }

    /// Writes `summary` (JSON of `[LiveCallSummary]`) soon, unless a later one replaces it first.
    func save(_ summary: [UInt8]) {
        let schedule = pendingSummary.withLock { pending -> Bool in
            defer { pending = summary }
            return pending == nil
        }
        if schedule { queue.async { [self] in writeSummary() } }
    }

    private func writeSummary() {
        assertOnQueue()
        guard
            let summary = pendingSummary.withLock({ p -> [UInt8]? in
                defer { p = nil }
                return p
            })
        else { return }
        do {
            if try !store.saveLiveCalls(node: node, summary: summary) {
                logger.warning(
                    "calls: the summary of calls in progress was not written: this node does not hold the lease")
            }
        } catch {
            logger.error(
                "calls: the summary of calls in progress could not be written", metadata: [LogKey.error: "\(error)"])
        }
    }
}
