//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One ancestor in `timeline.thread`: the post, or `{post_id, deleted: true}` when it is deleted or not visible.
public enum ThreadAncestor: Codable, Sendable, Equatable {
    /// A visible ancestor.
    case post(SocialPost)
    /// An ancestor that is deleted or not visible to the viewer: `{post_id, deleted: true}`.
    case gone(postId: Int64)

    /// The ancestor's post id.
    public var postId: Int64 {
        switch self {
        case .post(let post): post.postId
        case .gone(let id): id
        }
    }

    /// Whether the ancestor is deleted or not visible (`{post_id, deleted: true}` on the wire).
    public var deleted: Bool {
        if case .gone = self { return true }
        return false
    }

    /// The post, when it is visible.
    public var post: SocialPost? {
        if case .post(let post) = self { return post }
        return nil
    }

    enum GoneKeys: String, CodingKey {
        case postId, deleted
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: GoneKeys.self)
        if try c.decodeIfPresent(Bool.self, forKey: .deleted) == true {
            self = .gone(postId: try c.decode(Int64.self, forKey: .postId))
        } else {
            self = .post(try SocialPost(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .post(let post): try post.encode(to: encoder)
        case .gone(let id):
            var c = encoder.container(keyedBy: GoneKeys.self)
            try c.encode(id, forKey: .postId)
            try c.encode(true, forKey: .deleted)
        }
    }
}
