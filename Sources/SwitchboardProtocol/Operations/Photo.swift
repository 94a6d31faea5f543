//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A stored photo: `{photo_id, width, height, color, has_alpha, created_at}`. `width`/`height` are the upright
/// original's; the renditions (`GET /photos/{id}?size=display|thumb`) are it scaled to at most 1280/320 px.
public struct Photo: Codable, Sendable, Equatable, Hashable {
    public var photoId: Int64
    public var width: Int
    public var height: Int
    /// The dominant colour, `#rrggbb`: a placeholder while the bytes load.
    public var color: String
    public var hasAlpha: Bool
    /// RFC 3339, UTC.
    public var createdAt: String
    public init(photoId: Int64, width: Int, height: Int, color: String, hasAlpha: Bool, createdAt: String) {
        self.photoId = photoId
        self.width = width
        self.height = height
        self.color = color
        self.hasAlpha = hasAlpha
        self.createdAt = createdAt
    }
}
