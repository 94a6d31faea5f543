//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why `presence.set` or `typing` was refused (docs/protocol.md "Presence and typing"); mapped to the wire in
/// `wire`. Presence touches no database on a request (the hub and the writers do their own work), so this is a
/// `WireMappable` error without a database case.
public enum PresenceError: WireMappable, Equatable {
    /// `presence.set` with a status other than `online` or `away`.
    case invalidStatus
    /// `typing` with an activity other than `typing` or `recording`.
    case invalidActivity
    /// The caller's typing bucket is empty (`--typing-rate`).
    case typingLimited(retryAfterMilliseconds: Int64)

    public var wire: ServiceError {
        switch self {
        case .invalidStatus: return ServiceError(.badRequest, "status must be online or away")
        case .invalidActivity: return ServiceError(.badRequest, "activity must be typing or recording")
        case .typingLimited(let retryAfter):
            return ServiceError(.rateLimited, "too many typing updates", extra: ["retry_after_ms": retryAfter])
        }
    }
}
