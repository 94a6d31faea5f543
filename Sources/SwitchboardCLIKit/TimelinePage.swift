//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol

/// A timeline page as `timeline` prints it: the posts, the cursors and, for a user's timeline, the author's profile.
struct TimelinePage {
    /// Newest first.
    var posts: [SocialPost]
    /// The cursor of older posts (`before` of a timeline, `next_before` of `timeline.likes`); nil at the end.
    var older: Int64?
    /// The seq to pass as `after` for newer posts (nil for `timeline.likes`).
    var after: Int64?
    /// `timeline.user`: the author's profile.
    var profile: UserProfile?

    /// `timeline.home`, `timeline.mentions`, `timeline.hashtag`.
    init(_ page: PostPage) {
        self.init(posts: page.posts, older: page.before, after: page.after)
    }

    /// `timeline.user`.
    init(_ page: Ops.TimelineUser.Result) {
        self.init(posts: page.posts, older: page.before, after: page.after, profile: page.profile)
    }

    /// `timeline.likes`.
    init(_ page: Page<SocialPost>) {
        self.init(posts: page.posts, older: page.nextBefore)
    }

    private init(posts: [SocialPost], older: Int64?, after: Int64? = nil, profile: UserProfile? = nil) {
        self.posts = posts
        self.older = older
        self.after = after
        self.profile = profile
    }
}
