//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A stored photo's metadata (`Photo` on the wire: `docs/photos.md`).
public struct PhotoRecord: Sendable, Equatable {
    public var id: Int64
    public var ownerId: Int64
    /// The upright original's size.
    public var width: Int
    public var height: Int
    /// The dominant colour, `#rrggbb` (a placeholder while the image loads).
    public var color: String
    public var hasAlpha: Bool
    /// Wire timestamp.
    public var createdAt: String

    public init(id: Int64, ownerId: Int64, width: Int, height: Int, color: String, hasAlpha: Bool, createdAt: String) {
        self.id = id
        self.ownerId = ownerId
        self.width = width
        self.height = height
        self.color = color
        self.hasAlpha = hasAlpha
        self.createdAt = createdAt
    }

    /// The wire object `{photo_id, width, height, color, has_alpha, created_at}`.
    public var json: [String: any Sendable] {
        [
            "photo_id": id, "width": width, "height": height, "color": color, "has_alpha": hasAlpha,
            "created_at": createdAt,
        ]
    }
}
