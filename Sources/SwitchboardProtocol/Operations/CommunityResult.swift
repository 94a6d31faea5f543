//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{community}`.
public struct CommunityResult: Codable, Sendable, Equatable {
    public var community: Community
    public init(community: Community) { self.community = community }
}
