//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Communities' part of account deletion (memberships, the member counts decremented) and of the data export
/// (`communities.json`).
public enum CommunitiesAccountData {
    /// Community memberships.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("communities", order: 100) { db, userId, limit in
            try CommunityRepository.removeMemberships(db, userId: userId, limit: limit)
        }
    ]

    private struct ExportedCommunity: Encodable {
        var communityId: Int64
        var name: String
        var role: String
        var joinedAt: String
    }

    /// `communities.json`: the communities the user is a member of (id, name, role, joined_at).
    public static let exportSection = AccountExportSection(files: "communities.json", order: 80) { c in
        let userId = c.userId
        let communities = try await c.pool.withConnection { db in
            try CommunityRepository.memberships(db, userId: userId).map {
                ExportedCommunity(communityId: $0.communityId, name: $0.name, role: $0.role, joinedAt: $0.joinedAt)
            }
        }
        try c.add("communities.json", json: communities)
    }
}
