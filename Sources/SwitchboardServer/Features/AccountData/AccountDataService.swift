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

/// Account deletion and data export's use cases (docs/protocol.md "Account deletion and export"): what
/// `account.delete`, `account.export` and `account.exports` commit or read. The long work (the deletion job's
/// steps, building an archive) is `AccountLifecycle`'s, started by the feature's handlers once these have
/// committed. Off the loops only.
final class AccountDataService: Sendable {
    /// The database (the server's pool, the test database in tests).
    let db: any Database
    /// The password check of `account.delete` (the login buckets and the hashers).
    let identity: IdentityService
    /// Data exports one user may request in 24 hours (`--exports-per-day`, at least 1).
    let exportsPerDay: Int

    init(db: any Database, identity: IdentityService, exportsPerDay: Int) {
        self.db = db
        self.identity = identity
        self.exportsPerDay = max(1, exportsPerDay)
    }

    /// `account.delete`: checks the password, then in one transaction inserts the deletion job, frees the phone
    /// number, blanks the profile and revokes every session. The caller's friends and conversation partners hear
    /// `user.deleted`; the returned request names the friends presence forgets.
    func requestDeletion(
        _ caller: Caller, password: String
    ) async throws(AccountDataError) -> (DeletionRequest, [DomainEvent]) {
        do throws(IdentityError) {
            try await identity.verifyPassword(userId: caller.userId, password: password, address: caller.address)
        } catch { throw .password(error) }
        let me = caller.userId
        let request = try await db.write(as: AccountDataError.self) { db in
            try AccountDeletionRepository.request(db, userId: me)
        }
        guard let request else { throw .noSuchAccount }
        return (request, [DomainEvent(to: request.contactIds, AccountEvents.UserDeleted(userId: me))])
    }

    /// `account.export`: starts an export (`building`), at most one at a time and `exportsPerDay` a day.
    func startExport(_ caller: Caller) async throws(AccountDataError) -> AccountExportResult {
        let (me, perDay) = (caller.userId, exportsPerDay)
        return AccountExportResult(
            export: try await db.write(as: AccountDataError.self) { db in
                try AccountExportRepository.start(db, userId: me, perDay: perDay)
            })
    }

    /// `account.exports`: the user's exports, newest first (at most 20).
    func exports(of userId: Int64) async throws(AccountDataError) -> AccountExportsResult {
        AccountExportsResult(
            exports: try await db.read(as: AccountDataError.self) { db in
                try AccountExportRepository.list(db, userId: userId)
            })
    }
}
