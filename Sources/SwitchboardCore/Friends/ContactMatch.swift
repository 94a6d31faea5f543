//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A registered contact found by `contacts.match` (`UserRepository.matchPhones`).
public struct ContactMatch: Codable, Sendable, Equatable {
    /// The phone number as stored (E.164).
    public var phone: String
    /// Its user.
    public var userId: Int64
    /// The user's display name.
    public var displayName: String
}
