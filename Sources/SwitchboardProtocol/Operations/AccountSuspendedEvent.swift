//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The `account.suspended` event, sent before the connection closes with 4004.
public struct AccountSuspendedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "account.suspended"
    public var userId: Int64
    public init(userId: Int64) { self.userId = userId }
}
