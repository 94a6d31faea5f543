//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
