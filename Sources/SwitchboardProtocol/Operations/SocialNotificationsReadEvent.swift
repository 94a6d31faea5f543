//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The `notifications.read` event to my devices: my marker and what is left unread.
public struct SocialNotificationsReadEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "notifications.read"
    public var readId: Int64
    public var unread: Int64
    public init(readId: Int64, unread: Int64) {
        self.readId = readId
        self.unread = unread
    }
}
