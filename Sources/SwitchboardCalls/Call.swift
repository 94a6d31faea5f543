//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a call carries.
public enum CallMedia: String, Sendable, Hashable {
    /// Audio only (`voice` on the wire).
    case voice
    /// Audio and video (`video` on the wire).
    case video
}

/// Why a call ended; `rawValue` is the wire spelling of `call.ended {reason}`.
public enum CallEndReason: String, Sendable, Hashable, CaseIterable {
    /// The callee had no online device when invited.
    case unavailable
    /// Nobody answered before the ring deadline.
    case timeout
    /// A callee device declined.
    case declined
    /// The caller cancelled before an answer, or the caller's device disconnected while ringing.
    case cancelled
    /// The callee was already in an active call.
    case busy
    /// A party hung up an active call.
    case hangup
    /// A party's device stayed disconnected past the grace period.
    case connectionLost = "connection_lost"
    /// The server shut down.
    case serverShutdown = "server_shutdown"
    /// The node that coordinated the cluster's calls died; the node that took over ended the call.
    case serverFailure = "server_failure"

    /// The outcome written to the calls table for this reason.
    public var outcome: CallOutcome {
        switch self {
        case .unavailable, .timeout: .missed
        case .declined: .declined
        case .cancelled: .cancelled
        case .busy: .busy
        case .hangup: .completed
        case .connectionLost: .connectionLost
        case .serverShutdown: .serverShutdown
        case .serverFailure: .serverFailure
        }
    }
}

/// The outcome of a finished call as recorded (calls table and system message); `rawValue` is the stored spelling.
public enum CallOutcome: String, Sendable, Hashable, CaseIterable {
    /// No online device, or no answer before the deadline.
    case missed
    /// The callee declined.
    case declined
    /// The caller cancelled (or vanished) before an answer.
    case cancelled
    /// The callee was in another call.
    case busy
    /// Answered and hung up normally.
    case completed
    /// Answered, then a party's connection was lost past the grace period.
    case connectionLost = "connection_lost"
    /// Ended by a server shutdown.
    case serverShutdown = "server_shutdown"
    /// Ended because the cluster's call coordinator died (`docs/cluster.md`).
    case serverFailure = "server_failure"
}

/// Where a call is in its life.
public enum CallState: Sendable, Equatable {
    /// Ringing since `since` (monotonic ns) on `ringingDevices` of the callee (possibly none: the call
    /// keeps ringing until its deadline so that a device coming online can still answer).
    case ringing(since: UInt64, ringingDevices: Set<DeviceID>)
    /// Answered at `since` by `calleeDevice`; signals flow only between the two devices.
    case active(since: UInt64, callerDevice: DeviceID, calleeDevice: DeviceID)
    /// Finished; kept for `CallConfiguration.endedRetention`.
    case ended(reason: CallEndReason)
}

/// A snapshot of one call. Times are monotonic nanoseconds from the registry's injected clock.
public struct Call: Sendable, Equatable, CustomStringConvertible {
    /// The call's identifier.
    public let id: CallID
    /// The user who invited.
    public let caller: UserID
    /// The device the caller invited from; the only caller device that takes part.
    public let callerDevice: DeviceID
    /// The invited user.
    public let callee: UserID
    /// Voice or video (changes with a `media` signal).
    public internal(set) var media: CallMedia
    /// The current state.
    public internal(set) var state: CallState
    /// The SDP offer that travelled with the invite, delivered with `call.ring`.
    public let offer: String?
    /// When the invite was processed.
    public let createdAt: UInt64
    /// When the call times out if unanswered (inclusive).
    public let ringDeadline: UInt64
    /// The callee device that accepted, once one has.
    public internal(set) var acceptedDevice: DeviceID?
    /// When the call was accepted.
    public internal(set) var answeredAt: UInt64?
    /// When the call ended.
    public internal(set) var endedAt: UInt64?
    /// Party devices of an active call that are disconnected, with the deadline of their grace period.
    public internal(set) var graceDeadlines: [DeviceID: UInt64]

    /// ICE candidates from the caller held while ringing (bounded by `maxBufferedCandidates`).
    var bufferedCandidates: [String] = []
    /// Per-device signalling token buckets of the parties.
    var buckets: [DeviceID: TokenBucket] = [:]
    /// When an ended call is forgotten.
    var purgeAt: UInt64?
    /// The client-chosen names of this call (forgotten with it).
    var aliases: [CallAlias] = []

    init(
        id: CallID, caller: UserID, callerDevice: DeviceID, callee: UserID, media: CallMedia,
        offer: String?, createdAt: UInt64, ringDeadline: UInt64, ringingDevices: Set<DeviceID>
    ) {
        self.id = id
        self.caller = caller
        self.callerDevice = callerDevice
        self.callee = callee
        self.media = media
        self.state = .ringing(since: createdAt, ringingDevices: ringingDevices)
        self.offer = offer
        self.createdAt = createdAt
        self.ringDeadline = ringDeadline
        self.graceDeadlines = [:]
    }

    /// Whether `user` is the caller or the callee.
    public func involves(_ user: UserID) -> Bool { user == self.caller || user == self.callee }

    /// Whether the call has ended.
    public var isEnded: Bool {
        if case .ended = self.state { return true }
        return false
    }

    /// The callee devices ringing now (empty unless ringing).
    public var ringingDevices: Set<DeviceID> {
        if case .ringing(_, let devices) = self.state { return devices }
        return []
    }

    /// The other party's device of an active call, seen from `device`; nil if `device` is not a party device.
    public func peer(of device: DeviceID) -> DeviceID? {
        guard case .active(_, let callerDevice, let calleeDevice) = self.state else { return nil }
        if device == callerDevice { return calleeDevice }
        if device == calleeDevice { return callerDevice }
        return nil
    }

    /// Redacted: no SDP.
    public var description: String {
        "Call(\(self.id), \(self.caller)/\(self.callerDevice) -> \(self.callee), \(self.media.rawValue), \(self.state))"
    }
}

/// A client-chosen call id: a name of a call for one user only.
struct CallAlias: Hashable, Sendable {
    /// Who chose the name (the only user who may use it).
    let user: UserID
    /// The name.
    let name: CallID
}

/// The row the server writes when a call ends (exactly one per call), plus the system message.
/// Times are monotonic nanoseconds; the server maps them to wall-clock time with one reading of
/// both clocks when it handles the effect (`wall(t) = wallNow - (endedAt - t)`).
public struct CallRecord: Sendable, Equatable {
    /// The call.
    public let callID: CallID
    /// Who invited.
    public let caller: UserID
    /// The device the caller used.
    public let callerDevice: DeviceID
    /// Who was invited.
    public let callee: UserID
    /// The callee device that accepted, if any.
    public let calleeDevice: DeviceID?
    /// Media kind at the end of the call.
    public let media: CallMedia
    /// The recorded outcome.
    public let outcome: CallOutcome
    /// The precise end reason (`timeout` and `unavailable` both record as `missed`).
    public let reason: CallEndReason
    /// When the invite was processed.
    public let startedAt: UInt64
    /// When the call was accepted, if it was.
    public let answeredAt: UInt64?
    /// When the call ended.
    public let endedAt: UInt64
    /// From accept to end in milliseconds (0 if never answered).
    public let durationMilliseconds: Int64
}
