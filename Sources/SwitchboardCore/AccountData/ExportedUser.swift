//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A user as an export lists them (friends, conversation members).
public struct ExportedUser: Encodable, Sendable {
    public var userId: Int64
    public var displayName: String

    public init(userId: Int64, displayName: String) {
        self.userId = userId
        self.displayName = displayName
    }
}
