//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCalls
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

/// Call signalling settings (see docs/calls.md).
public struct CallSettings: Sendable {
    /// Seconds a call rings before it ends as a timeout (missed).
    public var ringTimeout: Double = 120
    /// Seconds a party's device may be disconnected from an active call before it ends as connection_lost.
    public var reconnectGrace: Double = 10
    /// Largest SDP in bytes.
    public var maxSDPBytes = 16 * 1024
    /// Largest ICE candidate (or other small signal) in bytes.
    public var maxICECandidateBytes = 1024
    /// Signals per device: per second and burst.
    public var signalsPerSecond: Double = 50
    public var signalBurst = 100
    /// ICE candidates held while ringing.
    public var maxBufferedCandidates = 64
    /// STUN/TURN URIs handed out by `call.turn`.
    public var turnURIs: [String] = []
    /// coturn's `static-auth-secret` (`use-auth-secret`); without it `call.turn` returns the URIs only.
    public var turnSecret: String?
    /// Seconds TURN credentials stay valid.
    public var turnTTL: Int64 = 3600
    /// `call.turn` requests per user per minute (and the burst).
    public var turnRequestsPerMinute: Double = 10

    public init() {}

    var registryConfiguration: CallConfiguration {
        CallConfiguration(
            ringTimeout: .milliseconds(Self.milliseconds(ringTimeout)),
            reconnectGrace: .milliseconds(Self.milliseconds(reconnectGrace)),
            maxSDPBytes: maxSDPBytes, maxICECandidateBytes: maxICECandidateBytes, signalsPerSecond: signalsPerSecond,
            signalBurst: signalBurst, maxBufferedCandidates: maxBufferedCandidates)
    }

    /// Seconds as whole milliseconds, clamped to 0...Int64.max / 1000 (no trap on huge or non-finite settings).
    static func milliseconds(_ seconds: Double) -> Int64 {
        let ms = seconds * 1000
        guard ms.isFinite else { return ms > 0 ? Int64.max / 1000 : 0 }
        return Int64(min(max(ms, 0), Double(Int64.max / 1000)))
    }
}
