//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `account.exports`.
public struct AccountExportsResult: Codable, Sendable, Equatable {
    public var exports: [DataExportInfo]
    public init(exports: [DataExportInfo]) { self.exports = exports }
}
