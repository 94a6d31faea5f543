//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `community.notification {notification}`: to every member's devices, the same bytes for all.
public struct CommunityNotificationEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "community.notification"
    public var notification: CommunityNotification
    public init(notification: CommunityNotification) { self.notification = notification }
}
