//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// A user's profile as the store reads it (`UserRepository.profile`, `SocialGraphRepository.decorate`); on the wire
/// as `UserProfile` (same fields).
public struct Profile: Codable, Sendable, Equatable {
    /// The user.
    public var userId: Int64
    /// The display name.
    public var displayName: String
    /// The phone number, in one's own profile only.
    public var phone: String?
    /// `admin` or `user`, in one's own profile only (moderation).
    public var role: String? = nil
    /// IANA time zone, in one's own profile only (`UTC` when never set).
    public var timeZone: String? = nil
    /// BCP 47 locale, in one's own profile only (`en-US` when never set).
    public var locale: String? = nil
    /// Social fields (`SocialGraphRepository.decorate`): the handle.
    public var handle: String? = nil
    /// The bio.
    public var bio: String? = nil
    /// Whether follows need approval.
    public var protected: Bool? = nil
    /// Who may start a conversation, in one's own profile only.
    public var dmPolicy: String? = nil
    /// Follower, following and post counts.
    public var stats: ProfileStats? = nil
    /// The viewer's relationship to the user, in others' profiles only.
    public var relationship: ProfileRelationship? = nil
    /// The profile picture (`SocialGraphRepository.decorate`); nil when none.
    public var avatar: Photo? = nil
}
