//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol

/// Community events, their participants and the calendar of a user's joined events (docs/protocol.md, "Events
/// and calendar"). Each handler decodes, asks `EventService` (the rules, one read or transaction, the events),
/// replies, and delivers the service's events after the commit: `community.notification` to the community's
/// members when an event is published, changed or cancelled, `event.joined` / `event.dropped` to the caller's own
/// devices, on every node. Owns its part of account deletion (participations) and the events' and calendar's
/// limits.
struct EventsFeature: Feature {
    let service: EventService

    init(context: ProtocolServices) {
        service = EventService(db: context.pool, limits: context.configuration.communities)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(EventsAccountData.deletionSteps)
        let limits = service.limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "events",
                values: [
                    ("max-event-days", "\(limits.maxEventDays)"),
                    ("max-event-capacity", "\(limits.maxEventCapacity)"),
                    ("calendar-max-events", "\(limits.maxCalendarEvents)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.EventsCreate.self) { s, p async throws(CommunityError) -> EventResult in
            let (result, events) = try await service.create(s.caller, p)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.EventsUpdate.self) { s, p async throws(CommunityError) -> EventResult in
            let (result, events) = try await service.update(s.caller, p)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.EventsCancel.self) { s, p async throws(CommunityError) -> EventResult in
            let (result, events) = try await service.cancel(s.caller, eventId: p.eventId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.EventsList.self) { s, p async throws(CommunityError) in
            try await service.list(
                communityId: p.communityId, viewer: s.userId, direction: p.direction, cursor: p.cursor, limit: p.limit)
        }
        registry.operations.register(Ops.EventsGet.self) { s, p async throws(CommunityError) in
            try await service.event(p.eventId, viewer: s.userId)
        }
        registry.operations.register(Ops.EventsJoin.self) { s, p async throws(CommunityError) -> EventResult in
            let (result, events) = try await service.join(s.caller, eventId: p.eventId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.EventsDrop.self) { s, p async throws(CommunityError) -> EventResult in
            let (result, events) = try await service.drop(s.caller, eventId: p.eventId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.EventsParticipants.self) { s, p async throws(CommunityError) in
            try await service.participants(eventId: p.eventId, viewer: s.userId, cursor: p.cursor, limit: p.limit)
        }
        registry.operations.register(Ops.CalendarGet.self) { s, p async throws(CommunityError) in
            try await service.calendar(viewer: s.userId, p)
        }
    }
}
