//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A joined community's unread count (`communities.unread`).
public struct CommunityUnread: Codable, Sendable, Equatable {
    public var communityId: Int64
    public var unread: Int64
    public init(communityId: Int64, unread: Int64) {
        self.communityId = communityId
        self.unread = unread
    }
}
