//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A community as one user sees it (`joined`, `role` and `unread` are that user's; in `community.updated`,
/// which is encoded once for every member, they are false, null and 0).
public struct Community: Codable, Sendable, Equatable {
    public var communityId: Int64
    public var name: String
    public var description: String
    public var category: String
    /// A URL, or null.
    public var picture: String?
    public var memberCount: Int64
    public var joined: Bool
    /// `member`, `core`, or null when not a member.
    public var role: String?
    /// Notifications not yet read (0 when not joined).
    public var unread: Int64
    public var archived: Bool
    public var createdAt: String

    public init(
        communityId: Int64, name: String, description: String, category: String, picture: String?, memberCount: Int64,
        joined: Bool,
        role: String?, unread: Int64, archived: Bool, createdAt: String
    ) {
        self.communityId = communityId
        self.name = name
        self.description = description
        self.category = category
        self.picture = picture
        self.memberCount = memberCount
        self.joined = joined
        self.role = role
        self.unread = unread
        self.archived = archived
        self.createdAt = createdAt
    }

    /// The community without the per-user fields (what `community.updated` carries to every member).
    public var shared: Community {
        var copy = self
        copy.joined = false
        copy.role = nil
        copy.unread = 0
        return copy
    }

    enum CodingKeys: String, CodingKey {
        case communityId, name, description, category, picture, memberCount, joined, role, unread, archived, createdAt
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(communityId, forKey: .communityId)
        try c.encode(name, forKey: .name)
        try c.encode(description, forKey: .description)
        try c.encode(category, forKey: .category)
        try c.encode(picture, forKey: .picture)  // null when absent
        try c.encode(memberCount, forKey: .memberCount)
        try c.encode(joined, forKey: .joined)
        try c.encode(role, forKey: .role)
        try c.encode(unread, forKey: .unread)
        try c.encode(archived, forKey: .archived)
        try c.encode(createdAt, forKey: .createdAt)
    }
}
