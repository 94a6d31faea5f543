//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{community_id}`.
public struct CommunityIdParameters: Codable, Sendable, Equatable {
    public var communityId: Int64
    public init(communityId: Int64) { self.communityId = communityId }
}
