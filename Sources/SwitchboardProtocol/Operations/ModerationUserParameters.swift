//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Parameters of `admin.suspend` and `admin.reinstate`.
public struct ModerationUserParameters: Codable, Sendable, Equatable {
    public var userId: Int64
    public var reason: String?
    /// `admin.suspend` only: the report this acts on (resolved with it).
    public var reportId: Int64?
    public init(userId: Int64, reason: String? = nil, reportId: Int64? = nil) {
        self.userId = userId
        self.reason = reason
        self.reportId = reportId
    }
}
