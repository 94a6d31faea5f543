//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The server's answer to `POST /photos`: the stored photo (docs/photos.md, docs/protocol.md "HTTP").
public struct PhotoUploadResult: Codable, Sendable, Equatable {
    /// The photo's id, for `moments.create`, `post.create`'s `photo_ids`, `profile.avatar.set` and `GET /photos/{id}`.
    public var photoId: Int64
    /// The upright original's width in pixels.
    public var width: Int
    /// The upright original's height in pixels.
    public var height: Int
    /// The dominant colour, `#rrggbb` (a placeholder while the photo loads).
    public var color: String
    /// Whether the photo has transparency.
    public var hasAlpha: Bool
    /// When the photo was first stored (wire time).
    public var createdAt: String
    /// True when you had uploaded the same file before: the id is that photo's, nothing new was stored.
    public var duplicate: Bool

    public init(
        photoId: Int64, width: Int, height: Int, color: String, hasAlpha: Bool, createdAt: String, duplicate: Bool
    ) {
        self.photoId = photoId
        self.width = width
        self.height = height
        self.color = color
        self.hasAlpha = hasAlpha
        self.createdAt = createdAt
        self.duplicate = duplicate
    }

    enum CodingKeys: String, CodingKey {
        case photoId, width, height, color, hasAlpha, createdAt, duplicate
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        photoId = try c.decode(Int64.self, forKey: .photoId)
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        color = try c.decodeIfPresent(String.self, forKey: .color) ?? ""
        hasAlpha = try c.decodeIfPresent(Bool.self, forKey: .hasAlpha) ?? false
        createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt) ?? ""
        duplicate = try c.decodeIfPresent(Bool.self, forKey: .duplicate) ?? false
    }
}
