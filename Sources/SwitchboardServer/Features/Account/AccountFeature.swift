//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol
import SwitchboardTransport
import SwitchboardWebSocket

/// Account deletion and data export: `account.delete`, `account.export`, `account.exports`, and `GET /export/{id}`
/// (docs/protocol.md, "Account deletion and export"). The work runs in `AccountLifecycle`, off the loops.
struct AccountFeature: FeatureModule {
    func register(in router: inout OperationRouter) {
        router.register(Ops.AccountDelete.self) { context, p in
            let s = context.snapshot
            context.run({ () async throws(ServiceError) -> Empty in
                try await s.services.accounts.verifyPassword(userId: s.userId, password: p.password, address: s.address, now: EventLoop.now())
                let request: DeletionRequest?
                do {
                    request = try await s.services.accounts.pool.transaction { db in try AccountDeletionRepository.request(db, userId: s.userId) }
                } catch { throw ServiceError.from(error) }
                // Committed: the job row, the freed phone number and the revoked sessions. The rest is the job's.
                guard let request else { throw ServiceError(.notFound, "no such account") }
                s.services.account.runDeletion(userId: s.userId)
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
        router.register(Ops.AccountExport.self) { s, _ async throws(ServiceError) -> AccountExportResult in
            let perDay = max(1, s.services.account.configuration.exportsPerDay)
            let info: DataExportInfo
            do {
                info = try await s.services.accounts.pool.transaction { db in
                    try AccountExportRepository.start(db, userId: s.userId, perDay: perDay)
                }
            } catch { throw ServiceError.from(error) }
            s.services.account.buildExport(id: info.exportId, userId: s.userId)
            return AccountExportResult(export: info)
        }
        router.register(Ops.AccountExports.self) { s, _ async throws(ServiceError) -> AccountExportsResult in
            do {
                return AccountExportsResult(
                    exports: try await s.services.accounts.pool.withConnection { db in try AccountExportRepository.list(db, userId: s.userId) })
            } catch { throw ServiceError.from(error) }
        }
    }
}

extension HTTPSession {
    /// `GET`/`HEAD /export/{id}` with `Authorization: Bearer <token>`, authorized like `GET /voice/{id}`.
    func handleExportDownload(_ head: HTTPRequestHead, rest: UnsafeRawBufferPointer) {
        guard let services = server.services else { return }
        let bodyLength = head.contentLength ?? 0
        guard head.method == "GET" || head.method == "HEAD" else {
            respond(status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8), head: head, bodyLength: bodyLength)
            return
        }
        guard bodyLength == 0, !head.isChunked else {
            respond(status: 400, body: Array("a download request has no body\n".utf8), keepAlive: false)
            return
        }
        let idText = head.path.dropFirst("/export/".count)
        let id = idText.count <= 18 && !idText.isEmpty && idText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int64(idText) : nil
        let authorization = head.headers["authorization"]
        let isHead = head.method == "HEAD"
        let keepAlive = head.keepAlive && rest.isEmpty
        process(keepAlive: keepAlive, isHead: isHead) {
            switch await services.voice.identity(authorization) {
            case .failure(let refusal): return refusal
            case .success(let identity): return await services.account.download(id: id, identity: identity)
            }
        }
    }
}
