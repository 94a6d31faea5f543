//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Social notifications and live pages (docs/protocol.md, "Social notifications" and "Live pages"; the design in
// docs/social.md, "Live pages: ordering, routing and resume").

extension Ops {
    /// The social notification and live page ops.
    public static let socialLive: [any ProtocolOperation.Type] = [
        NotificationsList.self, NotificationsUnread.self, NotificationsRead.self, LiveSubscribe.self,
        LiveUnsubscribe.self,
    ]

    /// `notifications.list {before?, limit?}` -> `{groups, unread, next_before}`: my social notifications, grouped.
    public enum NotificationsList: ProtocolOperation {
        public static let name = "notifications.list"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// A notification id: groups made of notifications older than it.
            public var before: Int64?
            /// 1-50 groups, default 20.
            public var limit: Int?
            public init(before: Int64? = nil, limit: Int? = nil) {
                self.before = before
                self.limit = limit
            }
        }
        public typealias Result = SocialNotificationsPage
    }

    /// `notifications.unread {}` -> `{unread}`.
    public enum NotificationsUnread: ProtocolOperation {
        public static let name = "notifications.unread"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = SocialUnread
    }

    /// `notifications.read {up_to?}` -> `{unread}`: moves my read marker forward (default: to the newest);
    /// `notifications.read {read_id, unread}` goes to my devices.
    public enum NotificationsRead: ProtocolOperation {
        public static let name = "notifications.read"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var upTo: Int64?
            public init(upTo: Int64? = nil) { self.upTo = upTo }
        }
        public typealias Result = SocialUnread
    }

    /// `live.subscribe {streams, since?}` -> `{subscribed, seq, posts, deleted, resync_required}`.
    public enum LiveSubscribe: ProtocolOperation {
        public static let name = "live.subscribe"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// `home`, `user:<id>`, `thread:<post id>`, `notifications`.
            public var streams: [String]
            /// The newest post seq the client has seen: the posts and deletions after it on the new streams come back.
            public var since: Int64?
            public init(streams: [String], since: Int64? = nil) {
                self.streams = streams
                self.since = since
            }
        }
        public typealias Result = LiveSubscribeResult
    }

    /// `live.unsubscribe {streams}` -> `{subscribed}`.
    public enum LiveUnsubscribe: ProtocolOperation {
        public static let name = "live.unsubscribe"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var streams: [String]
            public init(streams: [String]) { self.streams = streams }
        }
        public typealias Result = LiveUnsubscribeResult
    }
}
