//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Call signalling settings of `serve`.
struct CallOptions: ParsableArguments {
    @Option(help: "Seconds a call rings before it ends as missed. [env: SWITCHBOARD_RING_TIMEOUT]")
    var ringTimeout: Double = envValue("SWITCHBOARD_RING_TIMEOUT", as: Double.self) ?? 120

    @Option(
        help: "Seconds a party may be disconnected from a call before it ends. [env: SWITCHBOARD_CALL_RECONNECT_GRACE]")
    var callReconnectGrace: Double = envValue("SWITCHBOARD_CALL_RECONNECT_GRACE", as: Double.self) ?? 10

    @Option(name: .customLong("max-sdp-bytes"), help: "Largest SDP in bytes. [env: SWITCHBOARD_MAX_SDP_BYTES]")
    var maxSDPBytes: Int = envValue("SWITCHBOARD_MAX_SDP_BYTES", as: Int.self) ?? 16 * 1024

    @Option(help: "Call signals per device per second (burst twice that). [env: SWITCHBOARD_SIGNAL_RATE]")
    var signalRate: Double = envValue("SWITCHBOARD_SIGNAL_RATE", as: Double.self) ?? 50

    @Option(
        name: .customLong("turn-uris"),
        help: "Comma-separated STUN/TURN URIs for call.turn. [env: SWITCHBOARD_TURN_URIS]")
    var turnURIs: String = env("SWITCHBOARD_TURN_URIS") ?? ""

    @Option(
        help:
            """
            Shared secret of the TURN server (coturn static-auth-secret); prefer the environment. [env: \
            SWITCHBOARD_TURN_SECRET]
            """
    )
    var turnSecret: String = env("SWITCHBOARD_TURN_SECRET") ?? ""

    @Option(name: .customLong("turn-ttl"), help: "Seconds TURN credentials stay valid. [env: SWITCHBOARD_TURN_TTL]")
    var turnTTL: Int64 = envValue("SWITCHBOARD_TURN_TTL", as: Int64.self) ?? 3600

    @Option(help: "call.turn requests per user per minute (and the burst). [env: SWITCHBOARD_TURN_RATE]")
    var turnRate: Double = envValue("SWITCHBOARD_TURN_RATE", as: Double.self) ?? 10

    func validate() throws {
        guard ringTimeout > 0, callReconnectGrace >= 0, maxSDPBytes >= 256, signalRate > 0, turnTTL > 0, turnRate > 0
        else {
            throw ValidationError("call settings must be positive (SDP at least 256 bytes)")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.calls.ringTimeout = ringTimeout
        c.calls.reconnectGrace = callReconnectGrace
        c.calls.maxSDPBytes = maxSDPBytes
        c.calls.signalsPerSecond = signalRate
        c.calls.signalBurst = signalRate * 2 >= Double(Int32.max) ? Int(Int32.max) : max(1, Int(signalRate * 2))
        c.calls.turnURIs = turnURIs.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        c.calls.turnSecret = turnSecret.isEmpty ? nil : turnSecret
        c.calls.turnTTL = turnTTL
        c.calls.turnRequestsPerMinute = turnRate
    }
}
