//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `GET /photos/{id}/info` (HTTP, docs/protocol.md "Photos and resumable uploads"): what a viewer who may see the
/// photo may know of it, and where its renditions are. Never its location or camera data, nor whether the owner kept
/// the file's metadata, nor the hash of the upload.
public struct PhotoInfo: Codable, Sendable, Equatable {
    public var photoId: Int64
    /// Who uploaded it.
    public var ownerId: Int64
    /// The upright original's size.
    public var width: Int
    public var height: Int
    /// The uploaded file's format: `jpeg`, `png`, `webp` or `heic`.
    public var format: String
    /// The dominant colour, `#rrggbb`.
    public var color: String
    public var hasAlpha: Bool
    /// RFC 3339, UTC.
    public var createdAt: String
    /// Display first, then the thumbnail; WebP before JPEG.
    public var renditions: [PhotoRenditionInfo]

    public init(
        photoId: Int64, ownerId: Int64, width: Int, height: Int, format: String, color: String, hasAlpha: Bool,
        createdAt: String, renditions: [PhotoRenditionInfo]
    ) {
        self.photoId = photoId
        self.ownerId = ownerId
        self.width = width
        self.height = height
        self.format = format
        self.color = color
        self.hasAlpha = hasAlpha
        self.createdAt = createdAt
        self.renditions = renditions
    }
}
