//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `community.posts.create` and `community.posts.update`, and the event `community.post.updated`.
public struct CommunityPostResult: Codable, Sendable, Equatable {
    public var post: CommunityPost
    public init(post: CommunityPost) { self.post = post }
}
