//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{post}`.
public struct PostResult: Codable, Sendable, Equatable {
    public var post: SocialPost
    public init(post: SocialPost) { self.post = post }
}
