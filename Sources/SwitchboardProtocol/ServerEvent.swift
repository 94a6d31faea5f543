//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The account and friend events of protocol v1, as one enum for clients (`ClientEvent.account`); each case
/// carries its typed event (a `ProtocolEvent`, also listed in `ProtocolSchema.events`).
public enum ServerEvent: Sendable, Equatable {
    /// `friend.request.received {request}`: to every device of both users.
    case friendRequestReceived(FriendRequestReceived)
    /// `friend.request.accepted {request_id, requester, accepter}`: to both users.
    case friendRequestAccepted(FriendRequestAccepted)
    /// `friend.request.declined {request_id, from_user_id, to_user_id}`: to both users.
    case friendRequestDeclined(FriendRequestDeclined)
    /// `friend.request.cancelled {request_id, from_user_id, to_user_id}`: to both users.
    case friendRequestCancelled(FriendRequestCancelled)
    /// `friend.removed {user_ids}`: to both users.
    case friendRemoved(FriendRemoved)
    /// `profile.updated {profile}` (without phone): to the user's friends and own devices.
    case profileUpdated(ProfileUpdated)
    /// `session.revoked {session_id}`: to the revoked session's connections, before close 4001.
    case sessionRevoked(SessionRevoked)
    /// An event this version does not know (clients ignore it; later server versions add events).
    case unknown(name: String)

    /// The event names of protocol v1.
    public enum Name: String, Sendable, CaseIterable {
        case friendRequestReceived = "friend.request.received"
        case friendRequestAccepted = "friend.request.accepted"
        case friendRequestDeclined = "friend.request.declined"
        case friendRequestCancelled = "friend.request.cancelled"
        case friendRemoved = "friend.removed"
        case profileUpdated = "profile.updated"
        case sessionRevoked = "session.revoked"
    }

    /// The wire name (`ev`).
    public var name: String {
        switch self {
        case .friendRequestReceived: return Name.friendRequestReceived.rawValue
        case .friendRequestAccepted: return Name.friendRequestAccepted.rawValue
        case .friendRequestDeclined: return Name.friendRequestDeclined.rawValue
        case .friendRequestCancelled: return Name.friendRequestCancelled.rawValue
        case .friendRemoved: return Name.friendRemoved.rawValue
        case .profileUpdated: return Name.profileUpdated.rawValue
        case .sessionRevoked: return Name.sessionRevoked.rawValue
        case .unknown(let name): return name
        }
    }

    /// Fields of `friend.request.received`.
    public struct FriendRequestReceived: ProtocolEvent, Equatable {
        /// `friend.request.received`.
        public static var name: String { Name.friendRequestReceived.rawValue }
        /// The new pending request.
        public var request: PendingFriendRequest
        public init(request: PendingFriendRequest) { self.request = request }
    }

    /// Fields of `friend.request.accepted`.
    public struct FriendRequestAccepted: ProtocolEvent, Equatable {
        /// `friend.request.accepted`.
        public static var name: String { Name.friendRequestAccepted.rawValue }
        /// The request that was accepted.
        public var requestId: Int64
        /// Who asked.
        public var requester: UserSummary
        /// Who accepted.
        public var accepter: UserSummary

        public init(requestId: Int64, requester: UserSummary, accepter: UserSummary) {
            self.requestId = requestId
            self.requester = requester
            self.accepter = accepter
        }
    }

    /// Fields of `friend.request.declined`.
    public struct FriendRequestDeclined: ProtocolEvent, Equatable {
        /// `friend.request.declined`.
        public static var name: String { Name.friendRequestDeclined.rawValue }
        /// The request that the user asked declined.
        public var requestId: Int64
        /// Who had asked.
        public var fromUserId: Int64
        /// Who had been asked.
        public var toUserId: Int64

        /// The fields of the event.
        public init(requestId: Int64, fromUserId: Int64, toUserId: Int64) {
            self.requestId = requestId
            self.fromUserId = fromUserId
            self.toUserId = toUserId
        }
    }

    /// Fields of `friend.request.cancelled`.
    public struct FriendRequestCancelled: ProtocolEvent, Equatable {
        /// `friend.request.cancelled`.
        public static var name: String { Name.friendRequestCancelled.rawValue }
        /// The request that its sender cancelled.
        public var requestId: Int64
        /// Who had asked.
        public var fromUserId: Int64
        /// Who had been asked.
        public var toUserId: Int64

        /// The fields of the event.
        public init(requestId: Int64, fromUserId: Int64, toUserId: Int64) {
            self.requestId = requestId
            self.fromUserId = fromUserId
            self.toUserId = toUserId
        }
    }

    /// Fields of `friend.removed`.
    public struct FriendRemoved: ProtocolEvent, Equatable {
        /// `friend.removed`.
        public static var name: String { Name.friendRemoved.rawValue }
        /// The two users who are no longer friends (the remover first).
        public var userIds: [Int64]
        public init(userIds: [Int64]) { self.userIds = userIds }
    }

    /// Fields of `profile.updated`.
    public struct ProfileUpdated: ProtocolEvent, Equatable {
        /// `profile.updated`.
        public static var name: String { Name.profileUpdated.rawValue }
        /// The new profile, without phone.
        public var profile: UserProfile
        public init(profile: UserProfile) { self.profile = profile }
    }

    /// Fields of `session.revoked`.
    public struct SessionRevoked: ProtocolEvent, Equatable {
        /// `session.revoked`.
        public static var name: String { Name.sessionRevoked.rawValue }
        /// The revoked session.
        public var sessionId: Int64
        public init(sessionId: Int64) { self.sessionId = sessionId }
    }
}

extension ServerEvent {
    /// Decodes the fields of the event `name` from the event object.
    static func decode(name: String, from decoder: any Decoder) throws -> ServerEvent {
        guard let known = Name(rawValue: name) else { return .unknown(name: name) }
        switch known {
        case .friendRequestReceived: return .friendRequestReceived(try FriendRequestReceived(from: decoder))
        case .friendRequestAccepted: return .friendRequestAccepted(try FriendRequestAccepted(from: decoder))
        case .friendRequestDeclined: return .friendRequestDeclined(try FriendRequestDeclined(from: decoder))
        case .friendRequestCancelled: return .friendRequestCancelled(try FriendRequestCancelled(from: decoder))
        case .friendRemoved: return .friendRemoved(try FriendRemoved(from: decoder))
        case .profileUpdated: return .profileUpdated(try ProfileUpdated(from: decoder))
        case .sessionRevoked: return .sessionRevoked(try SessionRevoked(from: decoder))
        }
    }

    /// Encodes the fields (not `ev`) into `encoder`.
    func encodeFields(to encoder: any Encoder) throws {
        switch self {
        case .friendRequestReceived(let e): try e.encode(to: encoder)
        case .friendRequestAccepted(let e): try e.encode(to: encoder)
        case .friendRequestDeclined(let e): try e.encode(to: encoder)
        case .friendRequestCancelled(let e): try e.encode(to: encoder)
        case .friendRemoved(let e): try e.encode(to: encoder)
        case .profileUpdated(let e): try e.encode(to: encoder)
        case .sessionRevoked(let e): try e.encode(to: encoder)
        case .unknown: break
        }
    }
}
