//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A post as a viewer sees it (docs/protocol.md, "Posts and timelines"). A repost has `text` "" and carries the
/// original in `repost_of`; its counts and `liked`/`reposted` are the original's.
public struct SocialPost: Codable, Sendable, Equatable {
    public var postId: Int64
    public var seq: Int64
    public var author: SocialUser
    public var text: String
    public var createdAt: String
    public var replyTo: Int64?
    public var replyToUser: SocialUser?
    public var threadRoot: Int64?
    public var voiceClipId: Int64?
    public var mentions: [PostMention]
    public var hashtags: [String]
    public var likeCount: Int64
    public var repostCount: Int64
    public var replyCount: Int64
    public var liked: Bool
    public var reposted: Bool
    /// The photos, in order; omitted on the wire when none (issue 19).
    public var photos: [Photo]
    /// The original of a repost (boxed: a struct cannot hold itself).
    var original: Original?

    final class Original: Sendable, Equatable {
        let post: SocialPost
        init(_ post: SocialPost) { self.post = post }
        static func == (a: Original, b: Original) -> Bool { a.post == b.post }
    }

    /// The original of a repost.
    public var repostOf: SocialPost? {
        get { original?.post }
        set { original = newValue.map(Original.init) }
    }

    /// The post whose text, counts and author a reader sees: the original of a repost, else itself.
    public var shown: SocialPost { repostOf ?? self }

    public init(
        postId: Int64, seq: Int64, author: SocialUser, text: String, createdAt: String, replyTo: Int64? = nil,
        replyToUser: SocialUser? = nil,
        threadRoot: Int64? = nil, repostOf: SocialPost? = nil, voiceClipId: Int64? = nil, mentions: [PostMention] = [],
        hashtags: [String] = [],
        likeCount: Int64 = 0, repostCount: Int64 = 0, replyCount: Int64 = 0, liked: Bool = false,
        reposted: Bool = false,
        photos: [Photo] = []
    ) {
        self.postId = postId
        self.seq = seq
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.replyTo = replyTo
        self.replyToUser = replyToUser
        self.threadRoot = threadRoot
        self.voiceClipId = voiceClipId
        self.mentions = mentions
        self.hashtags = hashtags
        self.likeCount = likeCount
        self.repostCount = repostCount
        self.replyCount = replyCount
        self.liked = liked
        self.reposted = reposted
        self.photos = photos
        self.repostOf = repostOf
    }

    enum CodingKeys: String, CodingKey {
        case postId, seq, author, text, createdAt, replyTo, replyToUser, threadRoot, repostOf, voiceClipId, mentions,
            hashtags, likeCount,
            repostCount, replyCount, liked, reposted, photos
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            postId: try c.decode(Int64.self, forKey: .postId), seq: try c.decode(Int64.self, forKey: .seq),
            author: try c.decode(SocialUser.self, forKey: .author), text: try c.decode(String.self, forKey: .text),
            createdAt: try c.decode(String.self, forKey: .createdAt),
            replyTo: try c.decodeIfPresent(Int64.self, forKey: .replyTo),
            replyToUser: try c.decodeIfPresent(SocialUser.self, forKey: .replyToUser),
            threadRoot: try c.decodeIfPresent(Int64.self, forKey: .threadRoot),
            repostOf: try c.decodeIfPresent(SocialPost.self, forKey: .repostOf),
            voiceClipId: try c.decodeIfPresent(Int64.self, forKey: .voiceClipId),
            mentions: try c.decodeIfPresent([PostMention].self, forKey: .mentions) ?? [],
            hashtags: try c.decodeIfPresent([String].self, forKey: .hashtags) ?? [],
            likeCount: try c.decodeIfPresent(Int64.self, forKey: .likeCount) ?? 0,
            repostCount: try c.decodeIfPresent(Int64.self, forKey: .repostCount) ?? 0,
            replyCount: try c.decodeIfPresent(Int64.self, forKey: .replyCount) ?? 0,
            liked: try c.decodeIfPresent(Bool.self, forKey: .liked) ?? false,
            reposted: try c.decodeIfPresent(Bool.self, forKey: .reposted) ?? false,
            photos: try c.decodeIfPresent([Photo].self, forKey: .photos) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(postId, forKey: .postId)
        try c.encode(seq, forKey: .seq)
        try c.encode(author, forKey: .author)
        try c.encode(text, forKey: .text)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(replyTo, forKey: .replyTo)
        try c.encode(replyToUser, forKey: .replyToUser)
        try c.encode(threadRoot, forKey: .threadRoot)
        try c.encode(repostOf, forKey: .repostOf)
        try c.encode(voiceClipId, forKey: .voiceClipId)
        try c.encode(mentions, forKey: .mentions)
        try c.encode(hashtags, forKey: .hashtags)
        try c.encode(likeCount, forKey: .likeCount)
        try c.encode(repostCount, forKey: .repostCount)
        try c.encode(replyCount, forKey: .replyCount)
        try c.encode(liked, forKey: .liked)
        try c.encode(reposted, forKey: .reposted)
        if !photos.isEmpty { try c.encode(photos, forKey: .photos) }
    }
}
