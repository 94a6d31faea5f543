//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One ended call of `call.history`.
public struct CallHistoryEntry: Codable, Sendable, Equatable {
    public var callId: String
    public var callerId: Int64
    public var calleeId: Int64
    public var media: String
    public var outcome: String
    public var reason: String
    public var startedAt: String
    public var answeredAt: String?
    public var endedAt: String
    public var durationMs: Int64
    public init(
        callId: String, callerId: Int64, calleeId: Int64, media: String, outcome: String, reason: String,
        startedAt: String, answeredAt: String?, endedAt: String, durationMs: Int64
    ) {
        self.callId = callId
        self.callerId = callerId
        self.calleeId = calleeId
        self.media = media
        self.outcome = outcome
        self.reason = reason
        self.startedAt = startedAt
        self.answeredAt = answeredAt
        self.endedAt = endedAt
        self.durationMs = durationMs
    }
}
