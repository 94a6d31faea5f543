//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{user_id?, before?, limit?}` of the social lists (`user_id` only for `followers`/`following`).
public struct SocialPageParameters: Codable, Sendable, Equatable {
    public var userId: Int64?
    public var before: Int64?
    public var limit: Int?
    public init(userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil) {
        self.userId = userId
        self.before = before
        self.limit = limit
    }
}
