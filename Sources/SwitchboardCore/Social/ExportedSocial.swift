//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// `social.json` of `account.export`.
public struct ExportedSocial: Codable, Sendable {
    public struct Post: Codable, Sendable {
        public var postId: Int64
        public var seq: Int64
        public var text: String
        public var createdAt: String
        public var replyTo: Int64?
        public var repostOf: Int64?
        public var voiceClipId: Int64?
        public var likeCount: Int64
        public var repostCount: Int64
        public var replyCount: Int64
    }
    public struct Like: Codable, Sendable {
        public var postId: Int64
        public var createdAt: String
    }
    public var handle: String?
    public var bio: String
    public var protected: Bool
    public var dmPolicy: String
    public var following: [SocialUser]
    public var followers: [SocialUser]
    /// Pending requests you sent and received.
    public var requested: [SocialUser]
    public var requests: [SocialUser]
    public var posts: [Post]
    public var likes: [Like]
    public var blocks: [SocialUser]
    public var mutes: [SocialUser]
}
