//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `notifications.list`: `next_before` (a notification id) for the next page, null at the end.
public struct SocialNotificationsPage: Codable, Sendable, Equatable {
    public var groups: [SocialNotificationGroup]
    public var unread: Int64
    public var nextBefore: Int64?
    public init(groups: [SocialNotificationGroup], unread: Int64, nextBefore: Int64?) {
        self.groups = groups
        self.unread = unread
        self.nextBefore = nextBefore
    }
    enum CodingKeys: String, CodingKey { case groups, unread, nextBefore }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(groups, forKey: .groups)
        try c.encode(unread, forKey: .unread)
        try c.encode(nextBefore, forKey: .nextBefore)
    }
}
