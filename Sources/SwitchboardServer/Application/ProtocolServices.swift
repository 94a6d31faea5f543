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

/// The server's shared infrastructure and engines: what every feature is built with (`Feature.init(context:)`) and
/// what a request's handler reaches through `RequestContext.services`. Features keep their own services, limits and
/// rate limiters; what is here is shared by several of them (the session registry and outbox, the conversation
/// writers, presence, calls, live pages, uploads) or by the connection itself.
final class ProtocolServices: Sendable {
    /// The server's configuration (each feature reads its own group).
    let configuration: ServerConfiguration
    /// The database (request tasks through the `Database` seam, engines through the pool's Dispatch API).
    let pool: DatabasePool
    /// The server's logger.
    let logger: Logger
    /// Accounts and sessions (the identity feature's service; bearer tokens and profiles for other features).
    let accounts: IdentityService
    let registry: SessionRegistry
    /// This process's connections (attached when they authenticate).
    let outbox: LocalOutbox
    /// Where the engines' deliveries go: `outbox` on a single node, the cluster's outbox (this node's loops and
    /// the bus to the others) in a cluster.
    let delivery: any Outbox
    /// This node in a cluster (nil on a single node).
    let cluster: ClusterNode?
    /// This node's number (0 on a single node): the high bits of its connection ids.
    let node: UInt32
    /// Events to users and sessions (registry + outbox), for the op handlers.
    let deliveries: Deliveries
    /// Call signalling.
    let calls: CallService
    /// Conversations and messages.
    let messages: MessageHub
    /// Presence.
    let presence: PresenceHub
    /// Voice uploads and downloads over HTTP.
    let voice: VoiceService
    /// Photos and resumable uploads over HTTP.
    let photos: PhotoService
    /// Bytes a connection may queue (the transport's outbound limit).
    let outboundLimit: Int
    /// Requests a connection may send while its authentication runs (processed after it, in order).
    let maxQueuedDuringAuthentication = 32
    /// State-changing requests that may wait in a connection's ordered lane (`rate_limited` beyond).
    let maxWaitingRequests: Int
    /// Where request tasks run.
    let executor = DispatchTaskExecutor(label: "switchboard.requests")
    /// Seconds an unauthenticated connection may stay open.
    let authenticationTimeout: Double
    /// Requests a connection may have in flight before it stops being read (`RequestAdmission`).
    let maxRequestsInFlight: Int
    /// Admission gauges and the cancelled-task counter.
    let metrics: ServerMetrics
    /// Logs `internal` answers and counts error answers per op.
    let errors: InternalErrorReporter
    /// Active-hours recording (fed by presence).
    let activeHours: ActiveHoursRecorder
    /// Live pages and social notifications' pushes (`docs/social.md`).
    let social: SocialLive
    /// The post, like and repost buckets, shared by posts and moments (`PostLimits`).
    let posts: PostLimits

    init(
        accounts: IdentityService, pool: DatabasePool, configuration: ServerConfiguration,
        metrics: ServerMetrics, logger: Logger, cluster: ClusterNode? = nil
    ) {
        self.configuration = configuration
        self.pool = pool
        self.logger = logger
        self.accounts = accounts
        let registry = cluster?.registry ?? SessionRegistry()
        self.registry = registry
        self.outbox = cluster?.local ?? LocalOutbox()
        let outbox: any Outbox = cluster?.outbox ?? self.outbox
        self.delivery = outbox
        self.cluster = cluster
        self.node = cluster?.node ?? 0
        deliveries = Deliveries(registry: registry, outbox: outbox, cluster: cluster)
        let messages = MessageHub(
            registry: registry, outbox: outbox, pool: pool, configuration: configuration.messaging, metrics: metrics,
            logger: logger,
            redeliversResends: cluster != nil)
        self.messages = messages
        let coordination = cluster.map { cluster in
            CallCoordination(
                node: cluster.node, bus: cluster.bus, store: cluster.directory.store,
                forwarded: cluster.outbox.forwarded,
                settings: CallClusterSettings(configuration.cluster), logger: logger)
        }
        self.calls = CallService(
            registry: registry, outbox: outbox, settings: configuration.calls, pool: pool, messages: messages,
            coordination: coordination, logger: logger)
        cluster?.calls = self.calls
        cluster?.coordination = coordination
        let activeHours = ActiveHoursRecorder(
            pool: pool, configuration: configuration.activeHours, logger: logger, localNode: cluster?.node)
        self.activeHours = activeHours
        let presence = PresenceHub(
            registry: registry, outbox: outbox, pool: pool, grace: configuration.messaging.presenceGrace,
            metrics: metrics, logger: logger,
            localNode: cluster?.node, activeHours: activeHours)
        self.presence = presence
        cluster?.presence = presence
        let calls = self.calls
        let deliveries = self.deliveries
        cluster?.noticeHandler = { [node = cluster?.node ?? 0] notice in
            switch notice {
            case .friendship(let a, let b, let friends): presence.friendshipChanged(a, b, friends: friends)
            case .renamed(let userId, let name):
                presence.setName(name, of: userId)
                calls.setName(name, of: userId)
            case .revoked(let sessionId, let userId):
                deliveries.revokeLocally(sessionId: sessionId, userId: userId, node: node)
            case .suspended(let userId): deliveries.suspendLocally(userId: userId, node: node)
            case .accountDeleted(let userId): deliveries.closeDeletedAccountLocally(userId: userId, node: node)
            }
        }
        self.outboundLimit = configuration.maxOutboundBytes
        let voice = VoiceService(
            configuration: configuration.voice, nice: configuration.workerNice, accounts: accounts, pool: pool,
            metrics: metrics,
            logger: logger)
        self.voice = voice
        self.photos = PhotoService(
            configuration: configuration.photos, nice: configuration.workerNice, voice: voice, pool: pool,
            metrics: metrics,
            logger: logger)
        self.authenticationTimeout = configuration.authenticationTimeout
        let social = SocialLive(
            configuration: configuration.live, pool: pool, outbox: self.outbox, cluster: cluster, logger: logger)
        self.social = social
        cluster?.social = social
        self.posts = PostLimits(configuration.posts)
        self.maxWaitingRequests = configuration.maxWaitingRequests
        self.maxRequestsInFlight = configuration.maxRequestsInFlight
        self.metrics = metrics
        self.errors = InternalErrorReporter(logger: logger, metrics: metrics.operations)
    }
}

extension ProtocolServices {
    /// Two users became friends or stopped being friends: presence here, and every other node's caches.
    func friendshipChanged(_ a: Int64, _ b: Int64, friends: Bool) {
        presence.friendshipChanged(a, b, friends: friends)
        cluster?.announce(.friendship(a, b, friends: friends))
    }

    /// A user renamed itself: the names presence and calls keep, here and on every other node.
    func renamed(_ userId: Int64, _ name: String) {
        calls.setName(name, of: userId)
        presence.setName(name, of: userId)
        cluster?.announce(.renamed(userId: userId, name: name))
    }
}
