//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Dispatch
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The loops of a server or client, one per core by default.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    /// Connections flushed per loop turn (and again from the backlog) unless told otherwise: 128 one-frame sends are
    /// about 1 ms here, so work that arrives during a large fan-out waits about that long, not for all of it.
    public static let defaultFlushBudget = 128
    private let next = AtomicCounter()

    /// - Parameters:
    ///   - loopCount: number of serial loop queues.
    ///   - readBufferSize: bytes of each loop's shared read buffer.
    ///   - sweepInterval: nanoseconds between timeout sweeps.
    ///   - flushBudget: connections a loop turn flushes from those it wrote to, and again from the backlog of earlier
    ///     turns (`EventLoop`); the rest wait for later turns, with reads and posted work in between.
    public init(
        loopCount: Int,
        readBufferSize: Int = 64 * 1024,
        sweepInterval: UInt64 = 1_000_000_000,
        flushBudget: Int = EventLoopGroup.defaultFlushBudget,
        logger: Logger = Logger(label: "switchboard.transport")
    ) throws {
        signal(SIGPIPE, SIG_IGN)
        var loops: [EventLoop] = []
        for i in 0..<max(1, loopCount) {
            loops.append(
                try EventLoop(
                    index: i, readBufferSize: readBufferSize, sweepInterval: sweepInterval, flushBudget: flushBudget,
                    logger: logger))
        }
        self.loops = loops
        for loop in loops { loop.start() }
    }

    /// The next loop, round robin.
    public func nextLoop() -> EventLoop { loops[next.increment() % loops.count] }

    /// Closes every connection and stops the loops.
    public func shutdown() { for loop in loops { loop.stop() } }

    /// Closes every connection and stops the loops; `completion` runs on `queue` once every loop has run its
    /// connections' close callbacks. Never blocks the calling queue.
    public func shutdown(notifying queue: DispatchQueue, completion: @escaping @Sendable () -> Void) {
        let stopped = DispatchGroup()
        for loop in loops {
            loop.stop()
            // Queued after the loop's stop: runs once the close callbacks have.
            stopped.enter()
            loop.execute { stopped.leave() }
        }
        stopped.notify(queue: queue, execute: completion)
    }
}
