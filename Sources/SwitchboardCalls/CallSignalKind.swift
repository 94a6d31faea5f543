//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The kind of a signalling message relayed between the two devices of a call.
public enum CallSignalKind: String, Sendable, Hashable, CaseIterable {
    /// An SDP offer (renegotiation: ICE restart, hold, voice to video); limited by `maxSDPBytes`.
    case offer
    /// An SDP answer; limited by `maxSDPBytes`.
    case answer
    /// One trickled ICE candidate (`ice_candidate` on the wire); limited by `maxICECandidateBytes`.
    case iceCandidate = "ice_candidate"
    /// The sender put the call on hold (payload free-form, small).
    case hold
    /// The sender resumed from hold (payload free-form, small).
    case unhold
    /// The sender switches the media kind: payload `voice` or `video`; updates `Call.media`.
    case media
}
