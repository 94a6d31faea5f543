//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension DatabasePool: Database {
    public func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection(body)
    }

    public func write<T: Sendable>(
        urgent: Bool, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        guard let acting = ActingAccount.userId else { return try await transaction(urgent: urgent, body) }
        return try await transaction(urgent: urgent) { db in
            try ActingAccount.lock(db, acting)
            return try body(db)
        }
    }
}
