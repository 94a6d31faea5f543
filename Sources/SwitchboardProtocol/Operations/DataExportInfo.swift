//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
