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
import SwitchboardTransport
import SwitchboardWebSocket

/// Account deletion and data export: `account.delete`, `account.export`, `account.exports`, and `GET /export/{id}`
/// (docs/protocol.md, "Account deletion and export"). The work runs in `AccountLifecycle`, off the loops: a
/// deletion runs every feature's registered steps, an export every feature's sections.
struct AccountDataFeature: Feature {
    static let migrations: [Migration] = [.v0007AccountLifecycle]

    /// Deletion jobs, export builds and their sweep.
    let lifecycle: AccountLifecycle

    init(context: ProtocolServices) {
        lifecycle = AccountLifecycle(
            configuration: context.configuration.account, dataDirectory: context.configuration.dataDirectory,
            pool: context.pool, deliveries: context.deliveries, logger: context.logger)
    }

    func registered(_ registry: FeatureRegistry) {
        lifecycle.install(steps: registry.orderedDeletionSteps, sections: registry.exportSections)
    }

    func register(in registry: inout FeatureRegistry) {
        let lifecycle = self.lifecycle
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
        registry.operations.register(Ops.AccountDelete.self) { context, p in
            let s = context.snapshot
            context.run({ () async throws(ServiceError) -> Empty in
                try await s.services.accounts.verifyPassword(userId: s.userId, password: p.password, address: s.address, now: EventLoop.now())
                let request: DeletionRequest?
                do {
                    request = try await s.services.accounts.pool.transaction { db in try AccountDeletionRepository.request(db, userId: s.userId) }
                } catch { throw ServiceError.from(error) }
                // Committed: the job row, the freed phone number and the revoked sessions. The rest is the job's.
                guard let request else { throw ServiceError(.notFound, "no such account") }
                lifecycle.runDeletion(userId: s.userId)
                for friend in request.friendIds { s.services.friendshipChanged(s.userId, friend, friends: false) }
                s.services.deliveries.push(
                    PushEvent(
                        users: request.contactIds,
                        bytes: ProtocolCodec.encodeEvent(AccountEvents.UserDeleted(userId: s.userId))))
                return Empty()
            }, then: { app, _ in
                // After the reply (queued next on this loop): every connection of the account, on every node.
                app.services.deliveries.closeDeletedAccount(userId: s.userId)
            })
        }
        registry.operations.register(Ops.AccountExport.self) { s, _ async throws(ServiceError) -> AccountExportResult in
            let perDay = max(1, lifecycle.configuration.exportsPerDay)
            let info: DataExportInfo
            do {
                info = try await s.services.accounts.pool.transaction { db in
                    try AccountExportRepository.start(db, userId: s.userId, perDay: perDay)
                }
            } catch { throw ServiceError.from(error) }
            lifecycle.buildExport(id: info.exportId, userId: s.userId)
            return AccountExportResult(export: info)
        }
        registry.operations.register(Ops.AccountExports.self) { s, _ async throws(ServiceError) -> AccountExportsResult in
            do {
                return AccountExportsResult(
                    exports: try await s.services.accounts.pool.withConnection { db in try AccountExportRepository.list(db, userId: s.userId) })
            } catch { throw ServiceError.from(error) }
        }
    }
}
