//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A user as the social layer shows them: `{user_id, display_name, handle (string or null), protected}` — inside
/// posts, lists and notifications. One type serves the store (`SocialGraphRepository.socialUsers`) and the wire.
public struct SocialUser: Codable, Sendable, Equatable, Hashable {
    /// The user's id.
    public var userId: Int64
    /// The name the user chose.
    public var displayName: String
    /// The handle as typed, without the `@`; nil (JSON `null`) for a user without one.
    public var handle: String?
    /// Whether the account is protected (its posts reach active followers only).
    public var protected: Bool
    /// The id of the user's profile picture (`GET /photos/{id}`); absent when none.
    public var avatarPhotoId: Int64?

    public init(userId: Int64, displayName: String, handle: String?, protected: Bool, avatarPhotoId: Int64? = nil) {
        self.userId = userId
        self.displayName = displayName
        self.handle = handle
        self.protected = protected
        self.avatarPhotoId = avatarPhotoId
    }

    enum CodingKeys: String, CodingKey {
        case userId, displayName, handle, protected, avatarPhotoId
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userId, forKey: .userId)
        try c.encode(displayName, forKey: .displayName)
        try c.encode(handle, forKey: .handle)  // `null` on the wire, not absent
        try c.encode(`protected`, forKey: .protected)
        try c.encodeIfPresent(avatarPhotoId, forKey: .avatarPhotoId)
    }
}
