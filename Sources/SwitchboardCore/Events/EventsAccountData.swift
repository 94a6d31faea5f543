//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Events' part of account deletion: participations in community events (the events' counts decremented).
public enum EventsAccountData {
    /// Participations.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("event_participations", order: 90) { db, userId, limit in
            try CommunityRepository.dropParticipations(
                db, userId: userId, communityId: nil, endingAfter: nil, limit: limit
            )
            .count
        }
    ]
}
