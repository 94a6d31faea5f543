//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{event_id}`.
public struct EventIdParameters: Codable, Sendable, Equatable {
    public var eventId: Int64
    public init(eventId: Int64) { self.eventId = eventId }
}
