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
