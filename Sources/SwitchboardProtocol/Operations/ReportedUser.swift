//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A user named in a report.
public struct ReportedUser: Codable, Sendable, Equatable {
    public var userId: Int64
    public var displayName: String
    public var suspended: Bool?
    public init(userId: Int64, displayName: String, suspended: Bool? = nil) {
        self.userId = userId
        self.displayName = displayName
        self.suspended = suspended
    }
}
