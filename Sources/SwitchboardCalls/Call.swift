//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
