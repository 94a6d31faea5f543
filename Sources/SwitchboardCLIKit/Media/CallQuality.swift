//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient

/// Turns successive snapshots into the lines a call prints (pure; the clock is the snapshots' `elapsedMs`).
///
/// - Loss: the packets we did not receive, over the whole call (`lost / (received + lost)`), as the receiver
///   (we) counts them from sequence numbers.
/// - Bit rates: over the interval since the previous snapshot.
/// - MOS: an estimate from the E-model's simplified form (ITU-T G.107 as commonly reduced for VoIP monitoring):
///   effective latency = rtt/2 + 2 x jitter + 10 ms; R = 93.2 - latency/40 (or (latency-120)/10 above 160 ms) -
///   2.5 x loss%; MOS = 1 + 0.035 R + 7e-6 R (R - 60)(100 - R), within 1-4.5. Opus conceals loss better than the
///   codecs the model was fitted to, so this is pessimistic for Opus; it is for comparing runs, not a listening test.
public struct CallQuality: Sendable {
    public let callId: String
    private var previous: MediaSnapshot?

    public init(callId: String) {
        self.callId = callId
    }

    public static func lossPercent(received: UInt64, lost: Int64) -> Double? {
        let lost = max(lost, 0)
        let expected = Double(received) + Double(lost)
        return expected > 0 ? Double(lost) * 100 / expected : nil
    }

    public static func mos(rttMs: Double?, jitterMs: Double?, lossPercent: Double?) -> Double? {
        guard let rttMs else { return nil }
        let latency = rttMs / 2 + 2 * (jitterMs ?? 0) + 10
        var r = 93.2 - (latency < 160 ? latency / 40 : (latency - 120) / 10)
        r -= 2.5 * (lossPercent ?? 0)
        r = min(max(r, 0), 100)
        let mos = 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
        return min(max(mos, 1), 4.5)
    }

    /// The fields of a stats line for `snapshot` (rates against the previous one given to this function).
    public mutating func fields(_ s: MediaSnapshot) -> [String: JSONValue] {
        var fields = Self.common(s, callId: callId)
        if let p = previous, s.elapsedMs > p.elapsedMs {
            let seconds = Double(s.elapsedMs - p.elapsedMs) / 1000
            fields["in_kbps"] = .double(Self.round(Double(s.bytesReceived &- p.bytesReceived) * 8 / 1000 / seconds))
            fields["out_kbps"] = .double(Self.round(Double(s.bytesSent &- p.bytesSent) * 8 / 1000 / seconds))
        } else {
            fields["in_kbps"] = .null
            fields["out_kbps"] = .null
        }
        previous = s
        return fields
    }

    /// The fields of the end-of-call summary: the figures over the whole call.
    public static func summary(_ s: MediaSnapshot, callId: String, setupMs: Int64?) -> [String: JSONValue] {
        var fields = common(s, callId: callId)
        let seconds = Double(max(s.elapsedMs, 1)) / 1000
        fields["in_kbps"] = .double(round(Double(s.bytesReceived) * 8 / 1000 / seconds))
        fields["out_kbps"] = .double(round(Double(s.bytesSent) * 8 / 1000 / seconds))
        fields["media_received"] = .bool(s.packetsReceived > 0)
        fields["setup_ms"] = setupMs.map { .int($0) } ?? .null
        fields["bytes_received"] = .int(Int64(clamping: s.bytesReceived))
        fields["bytes_sent"] = .int(Int64(clamping: s.bytesSent))
        return fields
    }

    static func common(_ s: MediaSnapshot, callId: String) -> [String: JSONValue] {
        let loss = lossPercent(received: s.packetsReceived, lost: s.packetsLost)
        let rttMs = s.rttSeconds.map { $0 * 1000 }
        let jitterMs = s.jitterSeconds.map { $0 * 1000 }
        return [
            "call_id": .string(callId),
            "elapsed_ms": .int(s.elapsedMs),
            "ice_state": .string(s.iceState),
            "connection_state": .string(s.connectionState),
            "pair": s.localCandidateType.map { .string($0) } ?? .null,
            "remote_pair": s.remoteCandidateType.map { .string($0) } ?? .null,
            "rtt_ms": rttMs.map { .double(round($0)) } ?? .null,
            "jitter_ms": jitterMs.map { .double(round($0)) } ?? .null,
            "packets_received": .int(Int64(clamping: s.packetsReceived)),
            "packets_lost": .int(max(s.packetsLost, 0)),
            "loss_pct": loss.map { .double(round($0)) } ?? .null,
            "remote_packets_lost": s.remotePacketsLost.map { .int($0) } ?? .null,
            // GStreamer's level reports digital silence as -700 dB or so: below -127 dB is shown as -127.
            "audio_level_db": s.audioLevelDb.map { .double(round(max($0, -127))) } ?? .null,
            "mos": mos(rttMs: rttMs, jitterMs: jitterMs, lossPercent: loss).map { .double(round($0)) } ?? .null,
            "video_frames_received": .int(Int64(clamping: s.videoFramesReceived)),
        ]
    }

    /// The human line for stats `fields`.
    public static func line(_ fields: [String: JSONValue], prefix: String = "media") -> String {
        func number(_ key: String, _ unit: String, digits: Int = 0) -> String {
            guard case .double(let v)? = fields[key] else {
                if case .int(let i)? = fields[key] { return "\(i)\(unit)" }
                return "-"
            }
            return String(format: "%.\(digits)f", v) + unit
        }
        var parts: [String] = []
        if case .string(let state)? = fields["ice_state"] { parts.append(state) }
        if case .string(let pair)? = fields["pair"] { parts.append("via \(pair)") }
        parts.append("rtt \(number("rtt_ms", " ms"))")
        parts.append("jitter \(number("jitter_ms", " ms", digits: 1))")
        parts.append("lost \(number("packets_lost", "")) (\(number("loss_pct", "%", digits: 1)))")
        parts.append("in \(number("in_kbps", " kb/s")) out \(number("out_kbps", " kb/s"))")
        parts.append("level \(number("audio_level_db", " dB"))")
        if case .int(let frames)? = fields["video_frames_received"], frames > 0 {
            parts.append("video frames \(frames)")
        }
        parts.append("MOS \(number("mos", "", digits: 1))")
        return "\(prefix): " + parts.joined(separator: " · ")
    }

    static func round(_ v: Double) -> Double {
        guard v.isFinite else { return v < 0 ? -200 : 0 }
        return (v * 10).rounded() / 10
    }
}
