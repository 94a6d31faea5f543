//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardStore

/// Every feature of the server, in registration order: the one central list a new feature joins.
enum ServerFeatures {
    static let all: [any Feature.Type] = [
        IdentityFeature.self, FriendsFeature.self, MessagingFeature.self, PresenceFeature.self, ReactionsFeature.self,
        CallsFeature.self, VoiceFeature.self, ModerationFeature.self, AccountDataFeature.self, ActiveHoursFeature.self,
        CommunitiesFeature.self, EventsFeature.self, CoursesFeature.self, PostsFeature.self, TimelinesFeature.self,
        SocialNotificationsFeature.self, LiveFeature.self, ProfilesFeature.self, FollowsFeature.self,
        PhotosFeature.self, MomentsFeature.self, BackupsFeature.self,
    ]

    /// Every feature's migrations in version order.
    /// - Precondition: versions are unique and run from 1 without a gap (a feature that adds one takes the next).
    static let migrations: [Migration] = {
        let all = ServerFeatures.all.flatMap { $0.migrations }.sorted { $0.version < $1.version }
        for (index, migration) in all.enumerated() {
            precondition(
                migration.version == index + 1, "migration versions must run 1, 2, 3, ... (found \(migration.version))")
        }
        return all
    }()
}
