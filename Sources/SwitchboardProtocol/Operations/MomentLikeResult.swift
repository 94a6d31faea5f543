//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The answer of `moments.like`/`moments.unlike`: the count after the change, and whether I like it.
public struct MomentLikeResult: Codable, Sendable, Equatable {
    public var momentId: Int64
    public var likeCount: Int64
    public var liked: Bool
    public init(momentId: Int64, likeCount: Int64, liked: Bool) {
        self.momentId = momentId
        self.likeCount = likeCount
        self.liked = liked
    }
}
