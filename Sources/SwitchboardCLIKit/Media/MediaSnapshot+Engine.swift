//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CWebRTCMedia
import Foundation

extension MediaSnapshot {
    static let iceStates = ["new", "checking", "connected", "completed", "failed", "disconnected", "closed"]
    static let connectionStates = ["new", "connecting", "connected", "disconnected", "failed", "closed"]

    init(stats s: sbwr_stats, elapsedMs: Int64) {
        func text<T>(_ tuple: T) -> String? {
            var copy = tuple
            let value = withUnsafeBytes(of: &copy) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            return value.isEmpty ? nil : value
        }
        self.init(
            elapsedMs: elapsedMs,
            iceState: Self.iceStates.indices.contains(Int(s.ice_state)) ? Self.iceStates[Int(s.ice_state)] : "unknown",
            connectionState: Self.connectionStates.indices.contains(Int(s.connection_state))
                ? Self.connectionStates[Int(s.connection_state)] : "unknown",
            localCandidateType: text(s.local_candidate_type),
            remoteCandidateType: text(s.remote_candidate_type),
            rttSeconds: s.rtt_seconds >= 0 ? s.rtt_seconds : nil,
            jitterSeconds: s.jitter_seconds >= 0 ? s.jitter_seconds : nil,
            packetsReceived: s.packets_received,
            packetsLost: s.packets_lost,
            bytesReceived: s.bytes_received,
            bytesSent: s.bytes_sent,
            packetsSent: s.packets_sent,
            remotePacketsLost: s.remote_packets_lost >= 0 ? s.remote_packets_lost : nil,
            audioLevelDb: s.audio_level_db.isNaN ? nil : s.audio_level_db,
            videoFramesReceived: s.video_frames_received,
            remoteAudio: s.remote_audio != 0,
            remoteVideo: s.remote_video != 0)
    }
}
