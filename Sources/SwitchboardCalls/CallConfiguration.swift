//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Timeouts and limits of the call state machine. Every field has a documented default.
public struct CallConfiguration: Sendable, Equatable {
    /// How long a call may ring before it ends with `timeout` (default 120 s). The deadline is
    /// inclusive: at exactly `createdAt + ringTimeout` the call counts as timed out.
    public var ringTimeout: Duration
    /// How long a party's device may stay disconnected from an active call before the call ends
    /// with `connection_lost` (default 10 s, inclusive like the ring deadline).
    public var reconnectGrace: Duration
    /// The largest SDP (invite offer, accept answer, `offer`/`answer` signals) in UTF-8 bytes (default 16 KiB).
    public var maxSDPBytes: Int
    /// The largest ICE candidate or other small signal payload in UTF-8 bytes (default 1 KiB).
    public var maxICECandidateBytes: Int
    /// Signals a device may send per second on average (token bucket refill rate, default 50).
    public var signalsPerSecond: Double
    /// Signals a device may send in a burst (token bucket capacity, default 100).
    public var signalBurst: Int
    /// ICE candidates the caller may send while the call is still ringing; they are held and
    /// delivered to the device that accepts (default 64).
    public var maxBufferedCandidates: Int
    /// How long an ended call is kept so that its parties get `invalidState` rather than `notFound`
    /// for late requests (default 60 s).
    public var endedRetention: Duration

    /// Creates a configuration; every parameter has the documented default.
    public init(
        ringTimeout: Duration = .seconds(120),
        reconnectGrace: Duration = .seconds(10),
        maxSDPBytes: Int = 16 * 1024,
        maxICECandidateBytes: Int = 1024,
        signalsPerSecond: Double = 50,
        signalBurst: Int = 100,
        maxBufferedCandidates: Int = 64,
        endedRetention: Duration = .seconds(60)
    ) {
        self.ringTimeout = ringTimeout
        self.reconnectGrace = reconnectGrace
        self.maxSDPBytes = maxSDPBytes
        self.maxICECandidateBytes = maxICECandidateBytes
        self.signalsPerSecond = signalsPerSecond
        self.signalBurst = signalBurst
        self.maxBufferedCandidates = maxBufferedCandidates
        self.endedRetention = endedRetention
    }
}
