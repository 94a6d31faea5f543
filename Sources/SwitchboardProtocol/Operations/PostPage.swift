//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A page of posts, newest first: `before` (the seq to pass for older posts, null at the end) and `after` (the seq to
/// pass for newer ones).
public struct PostPage: Codable, Sendable, Equatable {
    public var posts: [SocialPost]
    public var before: Int64?
    public var after: Int64
    public init(posts: [SocialPost], before: Int64?, after: Int64) {
        self.posts = posts
        self.before = before
        self.after = after
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(posts, forKey: .posts)
        try c.encode(before, forKey: .before)
        try c.encode(after, forKey: .after)
    }
}
