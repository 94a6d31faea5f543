//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `contacts.match`: `{matches: [...]}` ordered by phone number.
public struct ContactsMatchResult: Codable, Sendable, Equatable {
    /// The registered numbers among those asked (never the asker).
    public var matches: [RegisteredContact]
    public init(matches: [RegisteredContact]) { self.matches = matches }
}
