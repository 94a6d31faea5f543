//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// One's own photos and the profile picture (docs/protocol.md, "Photos and avatars"; docs/photos.md; issue 19).

extension Ops {
    /// The photo and avatar ops.
    public static let photos: [any ProtocolOperation.Type] = [
        PhotosMine.self, PhotosDelete.self, ProfileAvatarSet.self, ProfileAvatarRemove.self,
    ]

    /// `photos.mine {before?, limit?}` -> `{photos, next_before}`: my photos, newest first.
    public enum PhotosMine: ProtocolOperation {
        public static let name = "photos.mine"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// A photo id (`next_before` of the previous page): photos older than it.
            public var before: Int64?
            /// 1-100, default 30.
            public var limit: Int?
            public init(before: Int64? = nil, limit: Int? = nil) {
                self.before = before
                self.limit = limit
            }
        }
        /// `{photos, next_before}`: the id to pass as `before` for older photos; null at the end.
        public typealias Result = Page<Photo>
    }

    /// `photos.delete {photo_id}` -> `{}`: deletes one of my photos for real (from moments, posts and my avatar too).
    public enum PhotosDelete: ProtocolOperation {
        public static let name = "photos.delete"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = PhotoIdParameters
        public typealias Result = Empty
    }

    /// `profile.avatar.set {photo_id}` -> `{profile}`: one of my photos becomes my profile picture.
    public enum ProfileAvatarSet: ProtocolOperation {
        public static let name = "profile.avatar.set"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = PhotoIdParameters
        public typealias Result = AvatarResult
    }

    /// `profile.avatar.remove {}` -> `{profile}`.
    public enum ProfileAvatarRemove: ProtocolOperation {
        public static let name = "profile.avatar.remove"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = AvatarResult
    }
}

/// `{photo_id}`.
public struct PhotoIdParameters: Codable, Sendable, Equatable {
    public var photoId: Int64
    public init(photoId: Int64) { self.photoId = photoId }
}

/// The reply to `profile.avatar.set`/`profile.avatar.remove`: `{profile}` (my own profile, with `avatar` or without).
public struct AvatarResult: Codable, Sendable, Equatable {
    public var profile: UserProfile
    public init(profile: UserProfile) { self.profile = profile }
}

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

/// One stored rendition of a photo (`PhotoInfo.renditions`): `{size, format, width, height, byte_count, url}`.
public struct PhotoRenditionInfo: Codable, Sendable, Equatable {
    /// `display` or `thumb`.
    public var size: String
    /// `webp` or `jpeg`.
    public var format: String
    public var width: Int
    public var height: Int
    /// The rendition's length in bytes.
    public var byteCount: Int64
    /// Its path on the server (`/photos/{id}?size=...&format=...`).
    public var url: String

    public init(size: String, format: String, width: Int, height: Int, byteCount: Int64, url: String) {
        self.size = size
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.url = url
    }
}
