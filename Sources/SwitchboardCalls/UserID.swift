//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A user account, as the store numbers it.
public struct UserID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The account's row id.
    public let rawValue: Int64

    /// Wraps an account's row id.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: UserID, rhs: UserID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "user:\(self.rawValue)" }
}
