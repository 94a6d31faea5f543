//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The kinds of social notification (`social_notifications.kind`).
public enum SocialNotificationKind: String, Sendable, Codable, CaseIterable {
    case follow
    case followRequest = "follow_request"
    case like, repost, reply, mention
}
