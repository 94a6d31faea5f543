//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
public import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore

/// The operator's side of the administrator role (`switchboard admin grant|revoke|list`, `docs/moderation.md`):
/// works on the configured PostgreSQL, or on the embedded one under the data folder. When a server runs on that
/// folder its PostgreSQL answers on the folder's socket and is used as it is (nothing is started or stopped);
/// otherwise the embedded PostgreSQL is started for the command and stopped after it. Grants and revocations are
/// written to the moderation audit log (actor `cli`) in the same transaction.
public enum Administrators {
    /// What the operator asked.
    public enum Action: Sendable {
        /// `admin grant PHONE`: the account becomes an administrator.
        case grant(phone: String)
        /// `admin revoke PHONE`: the account is an administrator no more.
        case revoke(phone: String)
        /// `admin list`: every administrator.
        case list
    }

    /// A refusal the command prints (exit status 1).
    public struct Failure: Error, CustomStringConvertible {
        /// The line printed after `switchboard admin: `.
        public var description: String

        /// The refusal of moderation's rule `error` (its message).
        init(_ error: ModerationError) { description = error.wire.message }
    }

    /// Runs `action`; returns the lines to print.
    public static func run(_ action: Action, configuration: ServerConfiguration, logger: Logger) throws -> [String] {
        var embedded: EmbeddedPostgres?
        let connectionString: String
        if let url = configuration.databaseURL, !url.isEmpty {
            connectionString = url
        } else {
            let server = EmbeddedPostgres(dataDirectory: configuration.dataDirectory, logger: logger)
            if server.isAcceptingConnections() {
                connectionString = server.connectionString()
            } else {
                connectionString = try server.start()
                embedded = server
            }
        }
        defer { embedded?.stop() }
        let pool = try DatabasePool(connectionString: connectionString, size: 1, logger: logger)
        defer { pool.close() }
        _ = try pool.migrateBlocking(logger: logger)
        return try blocking(pool) { db in try perform(action, db) }
    }

    static func perform(_ action: Action, _ db: PostgresConnection) throws -> [String] {
        switch action {
        case .grant(let raw), .revoke(let raw):
            let admin: Bool
            if case .grant = action { admin = true } else { admin = false }
            let phone: String
            do { phone = try PhoneNumber.normalize(raw) } catch { throw Failure(.invalidPhone) }
            return try db.transaction { db in
                guard let (userId, changed) = try ModerationRepository.setRole(db, phone: phone, admin: admin) else {
                    throw Failure(.noSuchPhone)
                }
                if changed {
                    try ModerationRepository.audit(
                        db, actorId: nil, actor: "cli", action: admin ? "grant" : "revoke", targetKind: "user",
                        targetId: userId, reason: nil)
                }
                let what = admin ? "is an administrator" : "is not an administrator"
                return ["user \(userId) \(what)\(changed ? "" : " (unchanged)")"]
            }
        case .list:
            let admins = try ModerationRepository.administrators(db)
            if admins.isEmpty { return ["no administrators"] }
            return admins.map {
                "\($0.userId)\t\($0.phone ?? "-")\t\($0.displayName)\($0.suspended ? "\t(suspended)" : "")"
            }
        }
    }

    static func blocking<T: Sendable>(
        _ pool: DatabasePool, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error> = .failure(CancellationError())
        pool.withConnection(on: DispatchQueue(label: "switchboard.admin"), body) { outcome in
            result = outcome
            done.signal()
        }
        done.wait()
        return try result.get()
    }
}
