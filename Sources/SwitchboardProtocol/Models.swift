//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The objects that appear inside results and events. Property names are camelCase in Swift and
// snake_case on the wire (the codec converts keys both ways).

/// A user's profile: `{user_id, display_name, phone?}`; `phone` is present only in one's own profile.
public struct UserProfile: Codable, Sendable, Equatable {
    /// The user's id.
    public var userId: Int64
    /// The name the user chose (1-64 characters).
    public var displayName: String
    /// The E.164 phone number; only in the user's own profile.
    public var phone: String?
    /// `admin` or `user`; only in the user's own profile (`authenticate`, `profile.get` of oneself).
    public var role: String?
    /// The IANA time zone (`UTC` when never set); only in the user's own profile (`profile.get` of oneself,
    /// `profile.update`).
    public var timeZone: String?
    /// The BCP 47 locale (`en-US` when never set); only in the user's own profile, like `time_zone`.
    public var locale: String?
    /// The handle (without `@`); absent when the user has none (Social).
    public var handle: String?
    /// The bio (at most 160 characters; "" when never set); in `profile.get`/`profile.update`/`handle.set` answers.
    public var bio: String?
    /// Whether the account is protected; with `bio`.
    public var protected: Bool?
    /// `friends`, `mutuals` or `anyone`; only in the user's own profile.
    public var dmPolicy: String?
    /// `{posts, following, followers}`; with `bio`.
    public var stats: ProfileStats?
    /// The viewer's relationship with the user; only in others' profiles (`profile.get`).
    public var relationship: ProfileRelationship?
    /// The profile picture; absent when none (`profile.avatar.set`, issue 19).
    public var avatar: Photo?

    public init(
        userId: Int64, displayName: String, phone: String? = nil, role: String? = nil, timeZone: String? = nil,
        locale: String? = nil,
        handle: String? = nil, bio: String? = nil, protected: Bool? = nil, dmPolicy: String? = nil,
        stats: ProfileStats? = nil,
        relationship: ProfileRelationship? = nil, avatar: Photo? = nil
    ) {
        self.userId = userId
        self.displayName = displayName
        self.phone = phone
        self.role = role
        self.timeZone = timeZone
        self.locale = locale
        self.handle = handle
        self.bio = bio
        self.protected = protected
        self.dmPolicy = dmPolicy
        self.stats = stats
        self.relationship = relationship
        self.avatar = avatar
    }
}

/// A user as other users see them: `{user_id, display_name}` (friends, requesters).
public struct UserSummary: Codable, Sendable, Equatable {
    /// The user's id.
    public var userId: Int64
    /// The user's display name.
    public var displayName: String
    /// The id of the user's profile picture (`GET /photos/{id}`); absent when none (the friends list).
    public var avatarPhotoId: Int64?

    public init(userId: Int64, displayName: String, avatarPhotoId: Int64? = nil) {
        self.userId = userId
        self.displayName = displayName
        self.avatarPhotoId = avatarPhotoId
    }
}

/// One of the user's sessions (a logged-in device), as listed by `sessions.list`.
public struct DeviceSession: Codable, Sendable, Equatable {
    /// The session's id (what `sessions.revoke` takes).
    public var sessionId: Int64
    /// The device name given at register or login.
    public var device: String
    /// When the session began (RFC 3339, UTC).
    public var createdAt: String
    /// When the session was last used to authenticate (RFC 3339, UTC).
    public var lastSeenAt: String
    /// Whether this is the session of the connection that asked.
    public var current: Bool

    public init(sessionId: Int64, device: String, createdAt: String, lastSeenAt: String, current: Bool) {
        self.sessionId = sessionId
        self.device = device
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.current = current
    }
}

/// A pending friend request: `{request_id, from, to, created_at}`.
public struct PendingFriendRequest: Codable, Sendable, Equatable {
    /// The request's id (what `friends.accept`, `friends.decline` and `friends.cancel` take).
    public var requestId: Int64
    /// Who asked.
    public var from: UserSummary
    /// Who was asked.
    public var to: UserSummary
    /// When the request was made (RFC 3339, UTC).
    public var createdAt: String

    public init(requestId: Int64, from: UserSummary, to: UserSummary, createdAt: String) {
        self.requestId = requestId
        self.from = from
        self.to = to
        self.createdAt = createdAt
    }
}

/// A registered user found by `contacts.match`: `{phone, user_id, display_name}`.
public struct RegisteredContact: Codable, Sendable, Equatable {
    /// The phone number, normalised to E.164.
    public var phone: String
    /// The user's id.
    public var userId: Int64
    /// The user's display name.
    public var displayName: String

    public init(phone: String, userId: Int64, displayName: String) {
        self.phone = phone
        self.userId = userId
        self.displayName = displayName
    }
}

// MARK: - Results (the `ok` object of a reply)

/// Result of `register` and `login`: `{user_id, session_id, session_token}`.
public struct SessionCredentials: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The account's user id.
    public var userId: Int64
    /// The new session's id.
    public var sessionId: Int64
    /// The bearer token for `authenticate` (43 base64url characters); a secret.
    public var sessionToken: String

    public init(userId: Int64, sessionId: Int64, sessionToken: String) {
        self.userId = userId
        self.sessionId = sessionId
        self.sessionToken = sessionToken
    }

    /// Redacts the token.
    public var description: String {
        "SessionCredentials(userId: \(userId), sessionId: \(sessionId), sessionToken: <redacted>)"
    }
}

/// Result of `authenticate`: `{user_id, session_id, profile}`.
public struct AuthenticateResult: Codable, Sendable, Equatable {
    /// The authenticated user.
    public var userId: Int64
    /// The session the token belongs to.
    public var sessionId: Int64
    /// The user's own profile (with phone).
    public var profile: UserProfile

    public init(userId: Int64, sessionId: Int64, profile: UserProfile) {
        self.userId = userId
        self.sessionId = sessionId
        self.profile = profile
    }
}

/// Result of `sessions.list`: `{sessions: [...]}`, newest first.
public struct SessionsListResult: Codable, Sendable, Equatable {
    /// The user's active sessions.
    public var sessions: [DeviceSession]
    public init(sessions: [DeviceSession]) { self.sessions = sessions }
}

/// Result of `profile.get` and `profile.update`: `{profile}`.
public struct ProfileResult: Codable, Sendable, Equatable {
    /// The profile asked for or updated.
    public var profile: UserProfile
    public init(profile: UserProfile) { self.profile = profile }
}

/// Result of `friends.request`: `{request}` for a new pending request, or `{friend}` when the users are
/// already friends or the other side had already asked (then accepted at once).
public struct FriendsRequestResult: Codable, Sendable, Equatable {
    /// The new pending request.
    public var request: PendingFriendRequest?
    /// The friend, when the result is a friendship.
    public var friend: UserSummary?

    public init(request: PendingFriendRequest? = nil, friend: UserSummary? = nil) {
        self.request = request
        self.friend = friend
    }
}

/// Result of `friends.accept`: `{friend}`.
public struct FriendResult: Codable, Sendable, Equatable {
    /// The new friend.
    public var friend: UserSummary
    public init(friend: UserSummary) { self.friend = friend }
}

/// Result of `friends.list`: `{friends: [...]}` by display name (case-insensitive), then user id.
public struct FriendsListResult: Codable, Sendable, Equatable {
    /// The friends, sorted.
    public var friends: [UserSummary]
    public init(friends: [UserSummary]) { self.friends = friends }
}

/// Result of `friends.requests`: `{incoming: [...], outgoing: [...]}`, oldest first.
public struct FriendsRequestsResult: Codable, Sendable, Equatable {
    /// Requests to the user.
    public var incoming: [PendingFriendRequest]
    /// Requests from the user.
    public var outgoing: [PendingFriendRequest]

    public init(incoming: [PendingFriendRequest], outgoing: [PendingFriendRequest]) {
        self.incoming = incoming
        self.outgoing = outgoing
    }
}

/// Result of `contacts.match`: `{matches: [...]}` ordered by phone number.
public struct ContactsMatchResult: Codable, Sendable, Equatable {
    /// The registered numbers among those asked (never the asker).
    public var matches: [RegisteredContact]
    public init(matches: [RegisteredContact]) { self.matches = matches }
}
