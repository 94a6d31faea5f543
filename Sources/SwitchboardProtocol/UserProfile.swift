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
