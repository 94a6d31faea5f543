//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a request of communities, events, the calendar or courses was refused (`communities.*`, `events.*`,
/// `calendar.get`, `community.posts.*`, `courses.*`; docs/protocol.md "Communities"); mapped to the wire in `wire`.
///
/// One type for the three features: events and courses live inside a community and share its rules (who sees a
/// community and reads its content, the archived state, the administrator role), its limits
/// (`CommunityConfiguration`: pages, text lengths, the hourly publication allowance) and its notifications
/// (`CommunityNotifications.publish` runs inside their transactions), so the repositories that enforce those rules
/// throw one error whichever service's transaction they run in.
public enum CommunityError: FeatureError, Equatable {
    // MARK: Shared

    /// A page size outside 1...`max`.
    case pageLimit(max: Int)
    /// A text parameter is not a valid stored string (the validator's message, naming the field).
    case invalidText(String)
    /// The community does not exist, or is archived and the caller is neither a member nor an administrator.
    case noSuchCommunity
    /// The caller is not an administrator (or is a suspended one).
    case administratorsOnly
    /// Members-only content (members, notifications, posts, the course) asked by a non-member who is not an
    /// administrator.
    case membersOnly
    /// `communities.read` or `communities.quit` by someone who is not a member of a community it sees.
    case notAMember
    /// The caller's hourly allowance of publications (community posts) is used up.
    case rateLimited(retryAfterMilliseconds: Int64)

    // MARK: Communities

    /// A `cursor` this server did not give (`communities.list`, `.members`, `courses.progress`).
    case badCursor
    /// A community name that is empty once trimmed (the name's text rule, checked first, refuses it today).
    case emptyName
    /// `picture` is not an http(s) URL of at most `maxBytes` bytes without spaces or control characters.
    case badPicture(maxBytes: Int)
    /// A live community already has the name (compared case-insensitively).
    case nameTaken
    /// `communities.core` for a user who is not a member of the community.
    case noSuchMember
    /// `before_seq` below 1.
    case badBeforeSeq
    /// `seq` below 0.
    case badSeq
    /// `communities.join` by a member.
    case alreadyMember
    /// A notification kind outside `CommunityNotification.kinds` (a bug of the publisher's caller).
    case unknownNotificationKind(String)
    /// A row just written could not be read back in its own transaction (an invariant violation).
    case notStored
    /// PostgreSQL has no ICU collations (the server's requirement).
    case noCollations

    // MARK: Events and calendar

    /// A timestamp parameter (`field`) that is not a wire timestamp.
    case badTimestamp(field: String)
    /// `ends_at` is not after `starts_at`.
    case endsBeforeStart
    /// The event lasts longer than `maxDays` days.
    case eventTooLong(maxDays: Int)
    /// A time zone this system does not know (or longer than 64 bytes).
    case unknownTimeZone
    /// A capacity outside 1...`max`.
    case badCapacity(max: Int64)
    /// A new capacity below the event's `participants`.
    case capacityBelowParticipants(Int64)
    /// The event was cancelled (no change, cancellation or join any more).
    case eventCancelled
    /// The event has ended: it can no longer be changed or cancelled.
    case eventOver
    /// The event has ended: it can no longer be joined or dropped (`event_ended`).
    case eventEnded
    /// The community is archived: its events can no longer be published, changed or joined.
    case archivedEvents
    /// `direction` is neither `upcoming` nor `past`.
    case badDirection
    /// A `cursor` of `events.list` or `events.participants` this server did not give.
    case badEventCursor
    /// The event does not exist, or is in a community the caller may not see.
    case noSuchEvent
    /// A community's events asked by a non-member who is not an administrator.
    case eventsMembersOnly
    /// `events.join` by a non-member.
    case joinMembersOnly
    /// `events.join` of an event the caller joined.
    case alreadyJoined
    /// `events.join` of an event at its capacity.
    case eventFull
    /// `events.drop` of an event the caller has not joined.
    case notJoined
    /// `calendar.get`'s `range` is not `day`, `week`, `month` or `year`.
    case badCalendarRange
    /// `calendar.get`'s `date` is not a valid YYYY-MM-DD.
    case badDate
    /// `calendar.get`'s `locale` is not a BCP 47 (or ICU) identifier.
    case badLocale
    /// `calendar.get`'s `date` is outside the years the calendar covers.
    case dateOutOfRange

    // MARK: Announcements and courses

    /// A post `kind` other than `announcement` and `lesson`.
    case badPostKind
    /// `position` given for an announcement.
    case positionForLessonsOnly
    /// `position` below 1.
    case badPosition
    /// `video_url` is not an absolute http(s) URL with a host of at most `maxBytes` bytes.
    case badVideoURL(maxBytes: Int)
    /// `community.posts.update` without any field to change.
    case nothingToChange
    /// `community.posts.list`'s `before` below 1.
    case badPostBefore
    /// The post does not exist, was deleted, or is in a community the caller may not see.
    case noSuchPost
    /// The voice clip does not exist or is not the caller's.
    case noSuchVoiceClip
    /// Posting by someone who is neither a core member nor an administrator.
    case postersOnly
    /// Changing or deleting a post by someone who is neither its author nor an administrator.
    case authorsOnly
    /// The community is archived: its posts and course can no longer be written or followed.
    case archivedCourse
    /// `courses.complete` by an administrator who is not a member.
    case courseMembersOnly
    /// `courses.complete` of an announcement.
    case notALesson
    /// `courses.progress` by a plain member.
    case progressCoreOnly
    /// A post just inserted could not be read back in its own transaction (an invariant violation).
    case postNotStored

    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .invalidText(let problem): return ServiceError(.badRequest, problem)
        case .noSuchCommunity: return ServiceError(.notFound, "no such community")
        case .administratorsOnly: return ServiceError(.forbidden, "administrators only")
        case .membersOnly: return ServiceError(.forbidden, "members only")
        case .notAMember: return ServiceError(.forbidden, "not a member")
        case .rateLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many events and posts; try again later", extra: ["retry_after_ms": retryAfter])
        case .badCursor: return ServiceError(.badRequest, "cursor is not one this server gave")
        case .emptyName: return ServiceError(.badRequest, "name must not be empty")
        case .badPicture(let max):
            return ServiceError(.badRequest, "picture must be an http or https URL of at most \(max) bytes")
        case .nameTaken: return ServiceError(.badRequest, "a community with this name exists")
        case .noSuchMember: return ServiceError(.notFound, "not a member of this community")
        case .badBeforeSeq: return ServiceError(.badRequest, "before_seq must be 1 or more")
        case .badSeq: return ServiceError(.badRequest, "seq must be 0 or more")
        case .alreadyMember: return ServiceError(.alreadyMember, "already a member of this community")
        case .unknownNotificationKind(let kind):
            return ServiceError(.internal, "unknown notification kind \(kind)", underlying: self)
        case .notStored: return ServiceError(.internal, "internal error", underlying: self)
        case .noCollations: return ServiceError(.internal, "PostgreSQL lacks ICU collations", underlying: self)
        case .badTimestamp(let field):
            return ServiceError(.badRequest, "\(field) must be a timestamp like 2026-11-23T18:30:00.000Z")
        case .endsBeforeStart: return ServiceError(.badRequest, "ends_at must be after starts_at")
        case .eventTooLong(let days): return ServiceError(.badRequest, "an event lasts at most \(days) days")
        case .unknownTimeZone: return ServiceError(.badRequest, "unknown time zone")
        case .badCapacity(let max): return ServiceError(.badRequest, "capacity must be 1 to \(max)")
        case .capacityBelowParticipants(let count):
            return ServiceError(.badRequest, "capacity is below the \(count) participants")
        case .eventCancelled: return ServiceError(.invalidState, "the event was cancelled")
        case .eventOver: return ServiceError(.invalidState, "the event has ended")
        case .eventEnded: return ServiceError(.eventEnded, "event has already ended")
        case .archivedEvents: return ServiceError(.invalidState, "the community is archived")
        case .badDirection: return ServiceError(.badRequest, "direction must be upcoming or past")
        case .badEventCursor: return ServiceError(.badRequest, "invalid cursor")
        case .noSuchEvent: return ServiceError(.notFound, "no such event")
        case .eventsMembersOnly: return ServiceError(.forbidden, "only the community's members see its events")
        case .joinMembersOnly: return ServiceError(.forbidden, "only the community's members join its events")
        case .alreadyJoined: return ServiceError(.alreadyJoined, "you already joined this event")
        case .eventFull: return ServiceError(.eventFull, "the event is full")
        case .notJoined: return ServiceError(.notJoined, "you have not joined this event")
        case .badCalendarRange: return ServiceError(.badRequest, "range must be day, week, month or year")
        case .badDate: return ServiceError(.badRequest, "date must be a valid YYYY-MM-DD")
        case .badLocale: return ServiceError(.badRequest, "invalid locale")
        case .dateOutOfRange: return ServiceError(.badRequest, "date is out of range")
        case .badPostKind: return ServiceError(.badRequest, "kind must be announcement or lesson")
        case .positionForLessonsOnly: return ServiceError(.badRequest, "position is for lessons")
        case .badPosition: return ServiceError(.badRequest, "position must be 1 or more")
        case .badVideoURL(let max):
            return ServiceError(.badRequest, "video_url must be an http or https URL of at most \(max) bytes")
        case .nothingToChange:
            return ServiceError(.badRequest, "nothing to change: give title, body, voice_clip_id or video_url")
        case .badPostBefore: return ServiceError(.badRequest, "before must be a post id (1 or more)")
        case .noSuchPost: return ServiceError(.notFound, "no such post")
        case .noSuchVoiceClip: return ServiceError(.notFound, "no such voice clip")
        case .postersOnly: return ServiceError(.forbidden, "only core members and administrators post")
        case .authorsOnly: return ServiceError(.forbidden, "only the author or an administrator")
        case .archivedCourse: return ServiceError(.forbidden, "the community is archived")
        case .courseMembersOnly: return ServiceError(.forbidden, "only members follow the course")
        case .notALesson: return ServiceError(.badRequest, "not a lesson")
        case .progressCoreOnly:
            return ServiceError(.forbidden, "only core members and administrators see the members' progress")
        case .postNotStored: return ServiceError(.internal, "the new post is missing", underlying: self)
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: CommunityError, rhs: CommunityError) -> Bool { lhs.wire == rhs.wire }
}
