//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A community's announcement or course lesson. Absent values are null on the wire.
public struct CommunityPost: Codable, Sendable, Equatable {
    public var postId: Int64
    public var communityId: Int64
    /// `announcement` or `lesson`.
    public var kind: String
    /// A lesson's place in the course (the stored position: deletions leave gaps, clients show by order); null for
    /// announcements.
    public var position: Int?
    public var title: String
    public var body: String
    /// Null when the author's account is gone.
    public var author: UserSummary?
    public var voiceClipId: Int64?
    public var videoUrl: String?
    /// Whether I completed this lesson (false for announcements, and in events, which all members share).
    public var completed: Bool
    public var createdAt: String
    public var updatedAt: String

    public init(
        postId: Int64, communityId: Int64, kind: String, position: Int?, title: String, body: String,
        author: UserSummary?,
        voiceClipId: Int64?, videoUrl: String?, completed: Bool, createdAt: String, updatedAt: String
    ) {
        self.postId = postId
        self.communityId = communityId
        self.kind = kind
        self.position = position
        self.title = title
        self.body = body
        self.author = author
        self.voiceClipId = voiceClipId
        self.videoUrl = videoUrl
        self.completed = completed
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case postId, communityId, kind, position, title, body, author, voiceClipId, videoUrl, completed, createdAt,
            updatedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(postId, forKey: .postId)
        try c.encode(communityId, forKey: .communityId)
        try c.encode(kind, forKey: .kind)
        try c.encode(position, forKey: .position)
        try c.encode(title, forKey: .title)
        try c.encode(body, forKey: .body)
        try c.encode(author, forKey: .author)
        try c.encode(voiceClipId, forKey: .voiceClipId)
        try c.encode(videoUrl, forKey: .videoUrl)
        try c.encode(completed, forKey: .completed)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
