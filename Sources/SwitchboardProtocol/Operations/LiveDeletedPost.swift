//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A deleted post in a live resume.
public struct LiveDeletedPost: Codable, Sendable, Equatable {
    public var postId: Int64
    public var seq: Int64
    public init(postId: Int64, seq: Int64) {
        self.postId = postId
        self.seq = seq
    }
}
