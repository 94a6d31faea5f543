//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// An event's status at an instant (docs/protocol.md "Events and calendar").
public enum EventStatus: String, Sendable, CaseIterable {
    case upcoming, ongoing, ended, cancelled

    /// Cancelled wins; otherwise ended when `now` ≥ `endsAt`, ongoing when `startsAt` ≤ `now`, else upcoming.
    public init(startsAt: Date, endsAt: Date, cancelled: Bool, now: Date) {
        if cancelled {
            self = .cancelled
        } else if now >= endsAt {
            self = .ended
        } else if now >= startsAt {
            self = .ongoing
        } else {
            self = .upcoming
        }
    }
}
