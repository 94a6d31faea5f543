//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{post_id}`.
public struct PostIdParameters: Codable, Sendable, Equatable {
    public var postId: Int64
    public init(postId: Int64) { self.postId = postId }
}
