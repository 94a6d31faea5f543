//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `relationship` of a profile that is not one's own: `{following ("none"|"pending"|"active"), followed_by,
/// blocking, muting, friend}`.
public struct ProfileRelationship: Codable, Sendable, Equatable {
    /// The viewer's follow of the user.
    public var following: String
    /// Whether the user actively follows the viewer.
    public var followedBy: Bool
    /// Whether the viewer blocked the user.
    public var blocking: Bool
    /// Whether the viewer mutes the user.
    public var muting: Bool
    /// Whether they are friends.
    public var friend: Bool
    public init(following: String, followedBy: Bool, blocking: Bool, muting: Bool, friend: Bool) {
        self.following = following
        self.followedBy = followedBy
        self.blocking = blocking
        self.muting = muting
        self.friend = friend
    }
}
