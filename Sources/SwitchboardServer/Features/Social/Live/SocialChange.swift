//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A change to the social graph or to posts, as the other parts tell LIVE about it (after their commit):
/// `services.social.publish(_:)`.
public enum SocialChange: Sendable {
    /// LIVE loads the post once, encodes `post.new` once.
    case postCreated(postId: Int64)
    case postDeleted(postId: Int64, authorId: Int64, threadRoot: Int64?, seq: Int64)
    /// LIVE reads the current counts (conflated).
    case counts(postId: Int64)
    /// A photo of the post was deleted: LIVE reads the photos left (`post.photos`, conflated like counts).
    case photos(postId: Int64)
    /// After commit of a recorded notification.
    case notified(userId: Int64, notificationId: Int64)
    /// Home indexes, profile counts.
    case followChanged(followerId: Int64, followeeId: Int64, active: Bool)
    case blockChanged(blockerId: Int64, blockedId: Int64, blocked: Bool)
    case muteChanged(muterId: Int64, mutedId: Int64, muted: Bool)
}
