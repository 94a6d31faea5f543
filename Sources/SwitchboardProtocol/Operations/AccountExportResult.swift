//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `account.export`; also the fields of `account.export_ready`.
public struct AccountExportResult: Codable, Sendable, Equatable {
    public var export: DataExportInfo
    public init(export: DataExportInfo) { self.export = export }
}
