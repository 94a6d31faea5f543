//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain

extension Database {
    /// Whether `userId` is an administrator (and not suspended), read on one pooled connection. A store failure is
    /// the feature's `E.database`.
    public func isAdministrator<E: FeatureError>(_ userId: Int64, as error: E.Type) async throws(E) -> Bool {
        try await read(as: E.self) { db in try AdministratorRole.holds(db, userId) }
    }

    /// Throws `refusal` (the feature's `forbidden` answer) unless `userId` is an administrator.
    public func requireAdministrator<E: FeatureError>(_ userId: Int64, otherwise refusal: E) async throws(E) {
        guard try await isAdministrator(userId, as: E.self) else { throw refusal }
    }
}
