//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A community's event as a member sees it (`joined` is the viewer's; `status` at the time of the answer).
public struct EventInfo: Codable, Sendable, Equatable {
    public var eventId: Int64
    public var communityId: Int64
    public var title: String
    public var description: String
    public var place: String
    public var startsAt: String
    public var endsAt: String
    /// The organiser's IANA zone.
    public var timeZone: String
    /// Null: no limit.
    public var capacity: Int64?
    public var participantCount: Int64
    public var joined: Bool
    /// "upcoming", "ongoing", "ended" or "cancelled".
    public var status: String
    public var version: Int64
    public var updatedAt: String

    public init(
        eventId: Int64, communityId: Int64, title: String, description: String, place: String, startsAt: String,
        endsAt: String,
        timeZone: String, capacity: Int64?, participantCount: Int64, joined: Bool, status: String, version: Int64,
        updatedAt: String
    ) {
        self.eventId = eventId
        self.communityId = communityId
        self.title = title
        self.description = description
        self.place = place
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.timeZone = timeZone
        self.capacity = capacity
        self.participantCount = participantCount
        self.joined = joined
        self.status = status
        self.version = version
        self.updatedAt = updatedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(eventId, forKey: .eventId)
        try c.encode(communityId, forKey: .communityId)
        try c.encode(title, forKey: .title)
        try c.encode(description, forKey: .description)
        try c.encode(place, forKey: .place)
        try c.encode(startsAt, forKey: .startsAt)
        try c.encode(endsAt, forKey: .endsAt)
        try c.encode(timeZone, forKey: .timeZone)
        // null when unlimited
        try c.encode(capacity, forKey: .capacity)
        try c.encode(participantCount, forKey: .participantCount)
        try c.encode(joined, forKey: .joined)
        try c.encode(status, forKey: .status)
        try c.encode(version, forKey: .version)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
