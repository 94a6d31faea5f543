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

/// Account deletion and data export: `account.delete`, `account.export`, `account.exports`, and `GET /export/{id}`
/// (docs/protocol.md, "Account deletion and export"). The handlers ask `AccountDataService` (the password check and
/// the transaction that starts a deletion or an export), then hand the long work to `AccountLifecycle`, off the
/// loops: a deletion runs every feature's registered steps, an export every feature's sections.
struct AccountDataFeature: Feature {
    static let migrations: [Migration] = [.v0007AccountLifecycle]

    /// The transactions that start a deletion or an export, and the list of exports.
    let service: AccountDataService
    /// Deletion jobs, export builds and their sweep.
    let lifecycle: AccountLifecycle

    init(context: ProtocolServices) {
        lifecycle = AccountLifecycle(
            configuration: context.configuration.account, dataDirectory: context.configuration.dataDirectory,
            pool: context.pool, deliveries: context.deliveries, logger: context.logger)
        service = AccountDataService(
            db: context.pool, identity: context.accounts, exportsPerDay: context.configuration.account.exportsPerDay)
    }

    func registered(_ registry: FeatureRegistry) {
        lifecycle.install(steps: registry.orderedDeletionSteps, sections: registry.exportSections)
    }

    func register(in registry: inout FeatureRegistry) {
        let lifecycle = self.lifecycle
        let limits = lifecycle.configuration
        registry.configuration.append(
            ConfigurationGroup(
                feature: "account-data",
                values: [
                    ("exports-per-day", "\(limits.exportsPerDay)"), ("export-max-bytes", "\(limits.exportMaxBytes)"),
                    ("export-ttl", "\(limits.exportTTL)"), ("export-downloads", "\(limits.maxConcurrentDownloads)"),
                    ("deletion-batch", "\(limits.deletionBatchSize)"),
                    ("deletion-batch-pause", "\(limits.deletionBatchPause)"),
                    ("account-sweep-interval", "\(limits.sweepInterval)"),
                ]))
        registry.lifecycle.append(
            FeatureLifecycle(name: "account sweep", start: { lifecycle.start() }, stop: { lifecycle.stop() }))
        // The data-export rows (their files removed once the batch has committed).
        registry.add(
            AccountDeletionStep(name: "exports", order: 80) { db, userId, limit in
                let (rows, files) = try AccountExportRepository.deleteBatch(db, userId: userId, limit: limit)
                return DeletionBatch(changed: rows, afterCommit: { lifecycle.removeFiles(files) })
            })
        // `GET`/`HEAD /export/{id}`: the archive for its owner while ready; 404 for anyone else or an unknown id.
        registry.routes.add(["GET"], "/export/{id}", .bearer) { request in
            guard let identity = request.identity else { return .error(401, "not_authenticated", "no session") }
            return await lifecycle.download(id: request.id("id"), identity: identity)
        }
        let service = self.service
        registry.operations.register(Ops.AccountDelete.self) { context, p in
            let s = context.snapshot
            context.run(
                { () async throws(ServiceError) -> Empty in
                    let (request, events): (DeletionRequest, [DomainEvent])
                    do throws(AccountDataError) {
                        (request, events) = try await service.requestDeletion(s.caller, password: p.password)
                    } catch { throw error.wire }
                    // Committed: the job row, the freed phone number and the revoked sessions. The rest is the job's.
                    lifecycle.runDeletion(userId: s.userId)
                    for friend in request.friendIds { s.services.friendshipChanged(s.userId, friend, friends: false) }
                    s.deliver(events)
                    return Empty()
                },
                then: { app, _ in
                    // After the reply (queued next on this loop): every connection of the account, on every node.
                    app.services.deliveries.closeDeletedAccount(userId: s.userId)
                })
        }
        registry.operations.register(Ops.AccountExport.self) { s, _ async throws(AccountDataError) in
            let result = try await service.startExport(s.caller)
            lifecycle.buildExport(id: result.export.exportId, userId: s.userId)
            return result
        }
        registry.operations.register(Ops.AccountExports.self) { s, _ async throws(AccountDataError) in
            try await service.exports(of: s.userId)
        }
    }
}
