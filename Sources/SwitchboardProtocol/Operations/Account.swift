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
        public static let stringParameters: [String: StringParameter] = ["password": .secret]
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
