//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket
import Synchronization

/// The messaging engine: writers with group commit, the conversation cache, fan-out and typing.
final class MessageHub: Sendable {
    let writers: [MessageWriter]
    let registry: SessionRegistry
    let outbox: any Outbox
    let pool: DatabasePool
    let configuration: MessagingConfiguration
    let metrics: ServerMetrics

    /// - Parameter redeliversResends: in a cluster, a resend that finds its message stored delivers it again
    ///   (`MessageWriter.redeliversResends`).
    init(
        registry: SessionRegistry, outbox: any Outbox, clock: any EngineClock = SystemClock(), pool: DatabasePool,
        configuration: MessagingConfiguration, metrics: ServerMetrics, logger: Logger, redeliversResends: Bool = false
    ) {
        self.registry = registry
        self.outbox = outbox
        self.pool = pool
        self.configuration = configuration
        self.metrics = metrics
        writers = (0..<max(1, configuration.writers)).map {
            MessageWriter(
                index: $0, registry: registry, outbox: outbox, clock: clock, pool: pool, configuration: configuration,
                metrics: metrics,
                logger: logger, redeliversResends: redeliversResends)
        }
    }

    func writer(for conversationId: Int64) -> MessageWriter {
        writers[Int(UInt64(bitPattern: conversationId) % UInt64(writers.count))]
    }

    func submit(_ request: WriteRequest) {
        writer(for: request.conversationId).submit(request)
    }

    /// Appends a system message to the direct conversation of two users (created if needed); for call
    /// records. `completion` runs on a writer queue.
    func recordCall(
        between a: Int64, and b: Int64, event: SystemEvent,
        completion: @escaping @Sendable (Result<ChatMessage, ServiceError>) -> Void
    ) {
        pool.withConnection(
            on: writers[0].queue, { db in try MessageStore.directConversation(db, a, b) },
            completion: { [self] result in
                switch result {
                case .success(let id):
                    submit(WriteRequest(conversationId: id, actor: a, action: .system(event), completion: completion))
                case .failure(let error):
                    completion(.failure(ServiceError.from(error)))
                }
            })
    }

}
