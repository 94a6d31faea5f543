//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Account deletion and data export (docs/protocol.md, "Account deletion and export").

extension Ops {
    /// The account deletion and export ops.
    public static let account: [any ProtocolOperation.Type] = [
        AccountDelete.self, AccountExport.self, AccountExports.self,
    ]

    /// `account.delete {password}` -> `{}`; then `account.deleted` and close 4005 on every connection of the user.
    public enum AccountDelete: ProtocolOperation {
        public static let name = "account.delete"
        public static let stateChanging = true
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.login
        /// Parameters of `account.delete`.
        public struct Parameters: Codable, Sendable, Equatable, CustomStringConvertible {
            /// The account's password, entered again; a secret.
            public var password: String
            public init(password: String) { self.password = password }
            /// Redacts the password.
            public var description: String { "AccountDeleteParams(password: <redacted>)" }
        }
        public typealias Result = Empty
    }

    /// `account.export {}` -> `{export}` (state `building`); `account.export_ready` follows.
    public enum AccountExport: ProtocolOperation {
        public static let name = "account.export"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = Empty
        public typealias Result = AccountExportResult
    }

    /// `account.exports {}` -> `{exports}`: the user's exports, newest first.
    public enum AccountExports: ProtocolOperation {
        public static let name = "account.exports"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = AccountExportsResult
    }
}

/// One data export of the user.
public struct DataExportInfo: Codable, Sendable, Equatable {
    public var exportId: Int64
    /// `building`, `ready`, `failed` or `expired`.
    public var state: String
    public var requestedAt: String
    /// When `ready`: download with `GET /export/{export_id}` until then.
    public var expiresAt: String?
    /// Bytes of the archive, when `ready`.
    public var size: Int64?
    /// Why it failed (`too_large`, `internal`), when `failed`.
    public var error: String?
    public init(
        exportId: Int64, state: String, requestedAt: String, expiresAt: String? = nil, size: Int64? = nil,
        error: String? = nil
    ) {
        self.exportId = exportId
        self.state = state
        self.requestedAt = requestedAt
        self.expiresAt = expiresAt
        self.size = size
        self.error = error
    }
}

/// Result of `account.export`; also the fields of `account.export_ready`.
public struct AccountExportResult: Codable, Sendable, Equatable {
    public var export: DataExportInfo
    public init(export: DataExportInfo) { self.export = export }
}

/// Result of `account.exports`.
public struct AccountExportsResult: Codable, Sendable, Equatable {
    public var exports: [DataExportInfo]
    public init(exports: [DataExportInfo]) { self.exports = exports }
}

/// The events of account deletion and export.
public enum AccountEvents {
    /// The close code after `account.deleted` (docs/protocol.md, "Close codes of protocol v1").
    public static let closeCode: UInt16 = 4005

    /// `account.deleted {user_id}`: to every connection of a deleted account, just before close 4005.
    public struct AccountDeleted: ProtocolEvent, Equatable {
        /// `account.deleted`.
        public static let name = "account.deleted"
        /// The deleted account.
        public var userId: Int64
        /// The fields of the event.
        public init(userId: Int64) { self.userId = userId }
    }

    /// `user.deleted {user_id}`: to the friends and fellow members of a deleted account (show their messages as
    /// a deleted account's tombstones).
    public struct UserDeleted: ProtocolEvent, Equatable {
        /// `user.deleted`.
        public static let name = "user.deleted"
        /// The deleted account.
        public var userId: Int64
        /// The fields of the event.
        public init(userId: Int64) { self.userId = userId }
    }

    /// `account.export_ready {export}`: to the user's devices when an export is ready (or failed).
    public struct ExportReady: ProtocolEvent, Equatable {
        /// `account.export_ready`.
        public static let name = "account.export_ready"
        /// The export, as `account.export` and `account.exports` show it.
        public var export: DataExportInfo
        /// The fields of the event.
        public init(export: DataExportInfo) { self.export = export }
    }
}
