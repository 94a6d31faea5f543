//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// A post's newest live reposts, read by live pages for each `post.counts` and `post.photos`
    /// (`SocialLiveRepository.reposters`, at most `--live-counts-reposters`): an index range read newest first that
    /// stops at the limit, however many reposts the post has.
    public static let v0017RepostsNewest = Migration(
        version: 17, name: "a post's newest reposts",
        sql: """
            CREATE INDEX posts_reposts_newest ON posts (repost_of, id DESC) INCLUDE (author_id)
                WHERE repost_of IS NOT NULL AND deleted_at IS NULL;
            """
    )
}
