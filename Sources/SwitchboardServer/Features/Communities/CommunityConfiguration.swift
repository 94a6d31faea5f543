//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import SwitchboardProtocol

/// Every limit of communities, events, the calendar and courses (docs/protocol.md, "Limits of communities"), in
/// one place; `serve` sets the operational ones from its flags (`CommunityOptions`). Immutable once the server
/// runs, so any queue may read it.
public struct CommunityConfiguration: Sendable, Equatable {
    /// Items per page by default and at most: `communities.list`, `communities.notifications`, `events.list` and
    /// `community.posts.list`.
    public var defaultPage = 20
    public var maxPage = 100
    /// People per page by default and at most: `communities.members`, `events.participants`, `courses.progress`.
    public var defaultPeoplePage = 50
    public var maxPeoplePage = 200
    /// The longest event, in days.
    public var maxEventDays = 31
    /// The largest capacity an event may have (events without a capacity have no limit).
    public var maxEventCapacity: Int64 = 100_000
    /// The most events one `calendar.get` answer carries (a year of a very busy member): beyond, the latest are
    /// left out.
    public var maxCalendarEvents = 5000
    /// `events.create` and `community.posts.create` per user per hour (also the burst): each one notifies every
    /// member of a community, so a stolen session of a core member cannot flood thousands of people.
    public var publicationsPerHour: Double = 120
    /// Longest community name, event title and post title, in characters (UTF-8 bytes: four times that).
    public var maxNameCharacters = 80
    public var maxTitleCharacters = 120
    /// Longest community and event description, in characters.
    public var maxDescriptionCharacters = 4000
    /// Longest announcement or lesson text, in characters.
    public var maxPostCharacters = 10_000
    /// Longest event place and community category, in characters.
    public var maxPlaceCharacters = 200
    public var maxCategoryCharacters = 40
    /// Longest picture or video URL, in bytes.
    public var maxURLBytes = 512

    public init() {}

    /// A community's name (required).
    var nameRule: TextRule {
        TextRule(field: "name", maxCharacters: maxNameCharacters, maxBytes: maxNameCharacters * 4)
    }
    /// An event's or a post's title (required).
    var titleRule: TextRule {
        TextRule(field: "title", maxCharacters: maxTitleCharacters, maxBytes: maxTitleCharacters * 4)
    }
    /// A community's description (line breaks allowed, may be blank).
    var communityDescriptionRule: TextRule {
        TextRule(
            field: "description", maxCharacters: maxDescriptionCharacters, maxBytes: maxDescriptionCharacters * 4,
            controls: .lineBreaksAndTabs, allowsBlank: true)
    }
    /// An event's description (line breaks allowed; checked only when not empty).
    var eventDescriptionRule: TextRule {
        TextRule(
            field: "description", maxCharacters: maxDescriptionCharacters, maxBytes: maxDescriptionCharacters * 4,
            controls: .lineBreaksAndTabs)
    }
    /// An announcement's or a lesson's text (line breaks allowed, may be blank).
    var bodyRule: TextRule {
        TextRule(
            field: "body", maxCharacters: maxPostCharacters, maxBytes: maxPostCharacters * 4,
            controls: .lineBreaksAndTabs, allowsBlank: true)
    }
    /// An event's place (checked only when not empty).
    var placeRule: TextRule {
        TextRule(field: "place", maxCharacters: maxPlaceCharacters, maxBytes: maxPlaceCharacters * 4)
    }
    /// A community's category (may be blank).
    var categoryRule: TextRule {
        TextRule(
            field: "category", maxCharacters: maxCategoryCharacters, maxBytes: maxCategoryCharacters * 4,
            allowsBlank: true)
    }

    /// A list's page size: `limit` or the default, refused outside 1...most.
    func page(_ limit: Int?, people: Bool = false) throws(CommunityError) -> Int {
        let most = people ? maxPeoplePage : maxPage
        let limit = limit ?? (people ? defaultPeoplePage : defaultPage)
        guard (1...most).contains(limit) else { throw .pageLimit(max: most) }
        return limit
    }

    /// `invalidText` (the validator's message) unless `text` is nil or a valid stored string under `rule`.
    func check(_ text: String?, _ rule: TextRule) throws(CommunityError) {
        if let text, let problem = StoredText.problem(text, rule) { throw .invalidText(problem) }
    }
}
