//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `stats` of a profile: `{posts, following, followers}` (exact counters).
public struct ProfileStats: Codable, Sendable, Equatable {
    public var posts: Int64
    public var following: Int64
    public var followers: Int64
    public init(posts: Int64, following: Int64, followers: Int64) {
        self.posts = posts
        self.following = following
        self.followers = followers
    }
}
