//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension ProtocolSchema {
    /// Every event the server pushes, feature by feature: each name once (a test checks that, and that
    /// `docs/protocol.md` documents each in an event table).
    public static let events: [any ProtocolEvent.Type] =
        accountEvents + messagingEvents + callEvents + communityEvents + socialEvents + momentEvents

    /// The event names, in the order of `events`.
    public static var eventNames: [String] { events.map { $0.name } }

    /// Accounts, friends, moderation, account deletion and export.
    static let accountEvents: [any ProtocolEvent.Type] = [
        ServerEvent.FriendRequestReceived.self, ServerEvent.FriendRequestAccepted.self,
        ServerEvent.FriendRequestDeclined.self, ServerEvent.FriendRequestCancelled.self, ServerEvent.FriendRemoved.self,
        ServerEvent.ProfileUpdated.self, ServerEvent.SessionRevoked.self, AccountSuspendedEvent.self,
        AccountEvents.AccountDeleted.self, AccountEvents.UserDeleted.self, AccountEvents.ExportReady.self,
    ]

    /// Messages, read markers, pins, reactions, presence and typing.
    static let messagingEvents: [any ProtocolEvent.Type] = [
        MessageEvent.self, ReadReceipt.self, HiddenMessage.self, MessagePinnedEvent.self, MessageUnpinnedEvent.self,
        MessageReactionEvent.self, PresenceUpdate.self, PresenceSnapshot.self, TypingUpdate.self,
    ]

    /// Call signalling.
    static let callEvents: [any ProtocolEvent.Type] = [
        CallEvents.Ring.self, CallEvents.Ringing.self, CallEvents.AnsweredElsewhere.self, CallEvents.Accepted.self,
        CallEvents.Signal.self, CallEvents.PeerConnectionLost.self, CallEvents.PeerReconnected.self,
        CallEvents.Resumed.self, CallEvents.Ended.self,
    ]

    /// Communities, their events and calendar, announcements and courses.
    static let communityEvents: [any ProtocolEvent.Type] = [
        CommunityNotificationEvent.self, CommunityUpdatedEvent.self, CommunityJoinedEvent.self,
        CommunityArchivedEvent.self, CommunityLeftEvent.self, CommunityRoleEvent.self, CommunityReadEvent.self,
        EventJoinedEvent.self, EventDroppedEvent.self, CourseEvents.PostUpdated.self, CourseEvents.PostDeleted.self,
        CourseEvents.Progress.self,
    ]

    /// The social layer: follows, relationships, live pages and notifications.
    static let socialEvents: [any ProtocolEvent.Type] = [
        SocialGraphEvents.FollowChanged.self, SocialGraphEvents.RelationshipChanged.self, LiveEvents.PostNew.self,
        LiveEvents.PostDeleted.self, LiveEvents.PostCounts.self, LiveEvents.PostPhotos.self,
        LiveEvents.ProfileCounts.self,
        LiveEvents.NotificationEvent.self, SocialNotificationsReadEvent.self,
    ]

    /// Moments.
    static let momentEvents: [any ProtocolEvent.Type] = [
        MomentEvents.Created.self, MomentEvents.Deleted.self, MomentEvents.Liked.self,
    ]
}
