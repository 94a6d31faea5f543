//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A mention stored with a post.
public struct PostMention: Codable, Sendable, Equatable {
    public var userId: Int64
    public var handle: String
    public init(userId: Int64, handle: String) {
        self.userId = userId
        self.handle = handle
    }
}
