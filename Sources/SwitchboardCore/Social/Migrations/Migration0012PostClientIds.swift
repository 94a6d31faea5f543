//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// `post.create`'s optional `client_id`: a resend with the same id returns the post it already made (like
    /// `messages.send`), so a client may resend after a failure or a reconnect without posting twice. And the
    /// author index of the home merge made covering: each followee's probe is an index-only scan (the columns the
    /// home rules filter on are in the index), which halved the home page on the 1,000,000-post data set
    /// (`docs/social.md`).
    public static let v0012PostClientIds = Migration(
        version: 12, name: "post client ids and a covering author index",
        sql: """
            ALTER TABLE posts ADD COLUMN client_id TEXT;
            CREATE UNIQUE INDEX posts_client_id ON posts (author_id, client_id) WHERE client_id IS NOT NULL;
            DROP INDEX posts_by_author;
            CREATE INDEX posts_by_author ON posts (author_id, seq DESC) INCLUDE (id, reply_to, reply_to_user, repost_of)
                WHERE deleted_at IS NULL;
            """
    )
}
