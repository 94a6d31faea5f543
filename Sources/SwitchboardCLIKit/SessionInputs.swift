//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
import SwitchboardProtocol
import SwitchboardTransport

/// The merged input of an interactive session: the client's events, stdin lines (read on a thread), and
/// Ctrl-C/SIGTERM. Keep it for the session's lifetime (it holds the signal sources).
///
/// Concurrency: a session's state (the call, pending sends, the oldest seq shown) lives in local variables of
/// the one task that consumes `stream`; the tasks it starts for requests never touch that state, they report
/// back through `continuation` (`.record`, `.requestFinished`). The client's own state stays on its loop
/// queue (docs/client.md).
public final class SessionInputs: Sendable {
    public let stream: AsyncStream<SessionInput>
    public let continuation: AsyncStream<SessionInput>.Continuation
    private let interrupts: InterruptHandler

    public init(client: SwitchboardClient, readInput: Bool = true) {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionInput.self, bufferingPolicy: .unbounded)
        self.stream = stream
        self.continuation = continuation
        interrupts = InterruptHandler { continuation.yield(.interrupt) }
        Task {
            for await event in client.events { continuation.yield(.event(event)) }
            continuation.yield(.eventsEnded)
        }
        if readInput {
            Terminal.readLines { line in continuation.yield(line.map(SessionInput.line) ?? .endOfInput) }
        }
    }

    /// Yields `.deadline(tag)` after `seconds`.
    public func schedule(_ tag: String, after seconds: Double) {
        let continuation = self.continuation
        Task {
            try? await Task.sleep(nanoseconds: UInt64(max(seconds, 0) * 1e9))
            continuation.yield(.deadline(tag: tag))
        }
    }
}
