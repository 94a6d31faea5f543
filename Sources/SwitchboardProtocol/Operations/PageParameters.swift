//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{before?, after?, limit?}` of a timeline page: at most one of `before` and `after` (seqs); `limit` 1-100, 20.
public struct PageParameters: Codable, Sendable, Equatable {
    public var before: Int64?
    public var after: Int64?
    public var limit: Int?
    public init(before: Int64? = nil, after: Int64? = nil, limit: Int? = nil) {
        self.before = before
        self.after = after
        self.limit = limit
    }
}
