//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A registered user found by `contacts.match`: `{phone, user_id, display_name}`.
public struct RegisteredContact: Codable, Sendable, Equatable {
    /// The phone number, normalised to E.164.
    public var phone: String
    /// The user's id.
    public var userId: Int64
    /// The user's display name.
    public var displayName: String

    public init(phone: String, userId: Int64, displayName: String) {
        self.phone = phone
        self.userId = userId
        self.displayName = displayName
    }
}
