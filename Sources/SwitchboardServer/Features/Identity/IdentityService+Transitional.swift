//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore

/// The name of the accounts service before issue 36 (`VoiceService`, `ProfilesFeature` still spell it).
/// Transitional: removed once every feature is on its own service.
typealias AccountService = IdentityService

// What features not yet moved onto their own services still call through `services.accounts` (the pool,
// profiles and the handle rule with the wire error). Transitional: removed once none does.
extension IdentityService {
    /// The server's pool (the database this service was built with), for features that still open their own
    /// connections and transactions.
    var pool: DatabasePool {
        guard let pool = db as? DatabasePool else { preconditionFailure("services.accounts.pool without a pool") }
        return pool
    }

    /// A profile as `profile.get` shows it to `viewer` (`not_found` "no such user" otherwise).
    func profile(of userId: Int64, viewer: Int64) async throws(ServiceError) -> Profile {
        do throws(IdentityError) {
            let profile = try await db.read(as: IdentityError.self) { db in
                try Self.profile(db, of: userId, viewer: viewer)
            }
            guard let profile else { throw IdentityError.noSuchUser }
            return profile
        } catch { throw error.wire }
    }

    /// `bad_request` with the handle rule's message unless `handle` may be chosen (taken or not aside).
    static func checkHandle(_ handle: String) throws(ServiceError) {
        do throws(IdentityError) { try IdentityRules.handle(handle) } catch { throw error.wire }
    }
}
