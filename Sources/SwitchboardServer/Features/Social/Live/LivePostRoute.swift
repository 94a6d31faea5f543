//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The facts that route a new post to live pages.
struct LivePostRoute: Sendable, Equatable {
    var postId: Int64
    var seq: Int64
    var authorId: Int64
    var authorProtected: Bool
    /// The thread's root for a reply.
    var threadRoot: Int64?
    /// The author of the post replied to.
    var replyToUser: Int64?
    /// The author of the original, for a repost.
    var originalAuthor: Int64?
}
