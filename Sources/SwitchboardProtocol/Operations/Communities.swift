//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Communities (docs/protocol.md, "Communities"): the list, membership, core members, and the community
// notifications behind the unread markers. Events, announcements and courses publish through the same
// notifications (`community.notification`).

extension Ops {
    /// The community ops.
    public static let communities: [any ProtocolOperation.Type] = [
        CommunitiesList.self, CommunitiesGet.self, CommunitiesCreate.self, CommunitiesUpdate.self,
        CommunitiesArchive.self,
        CommunitiesJoin.self, CommunitiesQuit.self, CommunitiesMembers.self, CommunitiesCore.self,
        CommunitiesUnread.self,
        CommunitiesNotifications.self, CommunitiesRead.self,
    ]

    /// `communities.list {limit?, cursor?}` -> `{communities, next_cursor, unread_total}`: joined communities first,
    /// then the others, each part by name in the user's locale (case- and accent-insensitive), then id.
    public enum CommunitiesList: ProtocolOperation {
        public static let name = "communities.list"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var limit: Int?
            public var cursor: String?
            public init(limit: Int? = nil, cursor: String? = nil) {
                self.limit = limit
                self.cursor = cursor
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var communities: [Community]
            /// The `cursor` of the next page; null on the last page.
            public var nextCursor: String?
            public var unreadTotal: Int64
            public init(communities: [Community], nextCursor: String?, unreadTotal: Int64) {
                self.communities = communities
                self.nextCursor = nextCursor
                self.unreadTotal = unreadTotal
            }
            enum CodingKeys: String, CodingKey { case communities, nextCursor, unreadTotal }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(communities, forKey: .communities)
                try c.encode(nextCursor, forKey: .nextCursor)
                try c.encode(unreadTotal, forKey: .unreadTotal)
            }
        }
    }

    /// `communities.get {community_id}` -> `{community}`.
    public enum CommunitiesGet: ProtocolOperation {
        public static let name = "communities.get"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = CommunityIdParameters
        public typealias Result = CommunityResult
    }

    /// `communities.create {name, description?, category?, picture?}` -> `{community}` (administrators).
    public enum CommunitiesCreate: ProtocolOperation {
        public static let name = "communities.create"
        public static let stringParameters: [String: StringParameter] = ["description": .text]
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var name: String
            public var description: String?
            public var category: String?
            public var picture: String?
            public init(name: String, description: String? = nil, category: String? = nil, picture: String? = nil) {
                self.name = name
                self.description = description
                self.category = category
                self.picture = picture
            }
        }
        public typealias Result = CommunityResult
    }

    /// `communities.update {community_id, name?, description?, category?, picture?}` -> `{community}`
    /// (administrators); `community.updated` to the members. `picture` "" removes the picture.
    public enum CommunitiesUpdate: ProtocolOperation {
        public static let name = "communities.update"
        public static let stringParameters: [String: StringParameter] = ["description": .text]
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            public var name: String?
            public var description: String?
            public var category: String?
            public var picture: String?
            public init(
                communityId: Int64, name: String? = nil, description: String? = nil, category: String? = nil,
                picture: String? = nil
            ) {
                self.communityId = communityId
                self.name = name
                self.description = description
                self.category = category
                self.picture = picture
            }
        }
        public typealias Result = CommunityResult
    }

    /// `communities.archive {community_id}` -> `{}` (administrators); `community.archived` to the members.
    public enum CommunitiesArchive: ProtocolOperation {
        public static let name = "communities.archive"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = CommunityIdParameters
        public typealias Result = Empty
    }

    /// `communities.join {community_id}` -> `{community}`; `community.joined` to my devices.
    public enum CommunitiesJoin: ProtocolOperation {
        public static let name = "communities.join"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = CommunityIdParameters
        public typealias Result = CommunityResult
    }

    /// `communities.quit {community_id}` -> `{dropped_event_ids}`: leaves, dropping my participations in the
    /// community's events that have not ended; `community.left` to my devices.
    public enum CommunitiesQuit: ProtocolOperation {
        public static let name = "communities.quit"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = CommunityIdParameters
        public struct Result: Codable, Sendable, Equatable {
            public var droppedEventIds: [Int64]
            public init(droppedEventIds: [Int64]) { self.droppedEventIds = droppedEventIds }
        }
    }

    /// `communities.members {community_id, limit?, cursor?}` -> `{members, next_cursor}` (members, admins): core
    /// members first, then by display name.
    public enum CommunitiesMembers: ProtocolOperation {
        public static let name = "communities.members"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            public var limit: Int?
            public var cursor: String?
            public init(communityId: Int64, limit: Int? = nil, cursor: String? = nil) {
                self.communityId = communityId
                self.limit = limit
                self.cursor = cursor
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var members: [CommunityMember]
            public var nextCursor: String?
            public init(members: [CommunityMember], nextCursor: String?) {
                self.members = members
                self.nextCursor = nextCursor
            }
            enum CodingKeys: String, CodingKey { case members, nextCursor }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(members, forKey: .members)
                try c.encode(nextCursor, forKey: .nextCursor)
            }
        }
    }

    /// `communities.core {community_id, user_id, core}` -> `{}` (administrators); `community.role` to that
    /// user's devices.
    public enum CommunitiesCore: ProtocolOperation {
        public static let name = "communities.core"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            public var userId: Int64
            public var core: Bool
            public init(communityId: Int64, userId: Int64, core: Bool) {
                self.communityId = communityId
                self.userId = userId
                self.core = core
            }
        }
        public typealias Result = Empty
    }

    /// `communities.unread` -> `{unread_total, communities: [{community_id, unread}]}`: my joined communities with
    /// unread notifications.
    public enum CommunitiesUnread: ProtocolOperation {
        public static let name = "communities.unread"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public struct Result: Codable, Sendable, Equatable {
            public var unreadTotal: Int64
            public var communities: [CommunityUnread]
            public init(unreadTotal: Int64, communities: [CommunityUnread]) {
                self.unreadTotal = unreadTotal
                self.communities = communities
            }
        }
    }

    /// `communities.notifications {community_id, before_seq?, limit?}` -> `{notifications, read_seq,
    /// next_before_seq}` (members, admins): newest first.
    public enum CommunitiesNotifications: ProtocolOperation {
        public static let name = "communities.notifications"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            public var beforeSeq: Int64?
            public var limit: Int?
            public init(communityId: Int64, beforeSeq: Int64? = nil, limit: Int? = nil) {
                self.communityId = communityId
                self.beforeSeq = beforeSeq
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var notifications: [CommunityNotification]
            public var readSeq: Int64
            public var nextBeforeSeq: Int64?
            public init(notifications: [CommunityNotification], readSeq: Int64, nextBeforeSeq: Int64?) {
                self.notifications = notifications
                self.readSeq = readSeq
                self.nextBeforeSeq = nextBeforeSeq
            }
            enum CodingKeys: String, CodingKey { case notifications, readSeq, nextBeforeSeq }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(notifications, forKey: .notifications)
                try c.encode(readSeq, forKey: .readSeq)
                try c.encode(nextBeforeSeq, forKey: .nextBeforeSeq)
            }
        }
    }

    /// `communities.read {community_id, seq?}` -> `{read_seq, unread, unread_total}` (members): moves my marker
    /// forward (never back) to `seq`, by default the newest; `community.read` to my devices.
    public enum CommunitiesRead: ProtocolOperation {
        public static let name = "communities.read"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            public var seq: Int64?
            public init(communityId: Int64, seq: Int64? = nil) {
                self.communityId = communityId
                self.seq = seq
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var readSeq: Int64
            public var unread: Int64
            public var unreadTotal: Int64
            public init(readSeq: Int64, unread: Int64, unreadTotal: Int64) {
                self.readSeq = readSeq
                self.unread = unread
                self.unreadTotal = unreadTotal
            }
        }
    }
}
