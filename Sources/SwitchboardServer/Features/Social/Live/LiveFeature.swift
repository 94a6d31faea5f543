//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Live pages: `live.subscribe` and `live.unsubscribe` (docs/protocol.md, "Live pages"; the design in
/// docs/social.md). The handlers check the request on the loop (`LiveService.streams`, `.check`), mark the
/// connection (subscribed; a resume holds its live events), ask `LiveService` off the loop (authorization,
/// registration in this node's `SocialIndex`, the replay), then on the loop reply and release the held events,
/// dropping those the replay already carried.
struct LiveFeature: Feature {
    static let migrations: [Migration] = [.v0017RepostsNewest]

    let service: LiveService

    init(context: ProtocolServices) {
        service = LiveService(db: context.pool, live: context.social)
    }

    func register(in registry: inout FeatureRegistry) {
        let service = self.service
        let limits = service.limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "live",
                values: [
                    ("max-subscriptions", "\(limits.maxSubscriptions)"), ("live-replay-max", "\(limits.replayMax)"),
                    ("live-counts-reposters", "\(limits.countsReposters)"),
                ]))
        registry.operations.register(Ops.LiveSubscribe.self) { context, p in
            let streams: [LiveStream]
            do throws(LiveError) {
                streams = try service.streams(p.streams)
                try service.check(streams, since: p.since)
            } catch {
                context.fail(error.wire)
                return
            }
            let app = context.connection
            let connection = app.connectionId
            let me = context.me
            let id = context.id
            let resume = p.since != nil
            app.social.subscribed = true
            if resume { app.beginResume() }
            context.run(
                { () async throws(ServiceError) -> Result<LiveService.Outcome, LiveError> in
                    do throws(LiveError) {
                        return .success(
                            try await service.subscribe(
                                connection: connection, user: me, streams: streams, since: p.since))
                    } catch {
                        return .failure(error)
                    }
                },
                replyWith: { app, outcome in
                    switch outcome {
                    case .success(let o):
                        app.sendReply(ProtocolCodec.encodeReply(id: id, result: o.result))
                        if resume { app.endResume(clock: o.clock, posts: o.posts, deletions: o.deletions) }
                    case .failure(let error):
                        app.sendError(id, op: Ops.LiveSubscribe.name, error.wire)
                        if resume { app.endResume(clock: nil, posts: [], deletions: []) }
                    }
                })
        }

        registry.operations.register(Ops.LiveUnsubscribe.self) { context, p in
            let streams: [LiveStream]
            do throws(LiveError) { streams = try service.streams(p.streams) } catch {
                context.fail(error.wire)
                return
            }
            let connection = context.connection.connectionId
            context.run { () async throws(ServiceError) -> LiveUnsubscribeResult in
                await service.unsubscribe(connection: connection, streams: streams)
            }
        }
    }
}
