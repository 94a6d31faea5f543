//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An encoded event to push to every connected device of some users: the untyped form that features not yet on
/// `DomainEvent` still hand to `Deliveries.push`.
public struct PushEvent: Sendable {
    /// Who hears it.
    public var users: [Int64]
    /// The event frame's text.
    public var bytes: [UInt8]

    public init(users: [Int64], bytes: [UInt8]) {
        self.users = users
        self.bytes = bytes
    }
}
