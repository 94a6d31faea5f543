//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A call as the call ops and events show it.
public struct CallInfo: Codable, Sendable, Equatable {
    public var callId: String
    public var callerId: Int64
    public var calleeId: Int64
    /// `voice` or `video`.
    public var media: String
    /// `ringing`, `active` or `ended`.
    public var state: String
    /// With `ended`.
    public var reason: String?
    /// The caller's offer (to the callee's devices, and on glare).
    public var offer: String?
    /// While `ringing`: milliseconds left before the ring times out, when the reply or event was written.
    public var ringMs: Int64?

    /// A call.
    public init(
        callId: String, callerId: Int64, calleeId: Int64, media: String, state: String, reason: String? = nil,
        offer: String? = nil, ringMs: Int64? = nil
    ) {
        self.callId = callId
        self.callerId = callerId
        self.calleeId = calleeId
        self.media = media
        self.state = state
        self.reason = reason
        self.offer = offer
        self.ringMs = ringMs
    }
}
