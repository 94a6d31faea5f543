//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The answer of `post.like`/`post.unlike`: the original's id and count after the change, and whether I like it.
public struct PostLikeResult: Codable, Sendable, Equatable {
    public var postId: Int64
    public var likeCount: Int64
    public var liked: Bool
    public init(postId: Int64, likeCount: Int64, liked: Bool) {
        self.postId = postId
        self.likeCount = likeCount
        self.liked = liked
    }
}
