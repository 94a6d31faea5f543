//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One reading of a call's media figures (the engine's `get-stats`, summed over streams).
public struct MediaSnapshot: Sendable, Equatable {
    /// Milliseconds since the call was accepted.
    public var elapsedMs: Int64
    public var iceState: String
    public var connectionState: String
    /// The selected candidate pair's local and remote candidate types (host, srflx, prflx, relay).
    public var localCandidateType: String?
    public var remoteCandidateType: String?
    public var rttSeconds: Double?
    public var jitterSeconds: Double?
    public var packetsReceived: UInt64
    public var packetsLost: Int64
    public var bytesReceived: UInt64
    public var bytesSent: UInt64
    public var packetsSent: UInt64
    /// What the peer reports about the stream we send (RTCP receiver reports).
    public var remotePacketsLost: Int64?
    public var audioLevelDb: Double?
    public var videoFramesReceived: UInt64
    public var remoteAudio: Bool
    public var remoteVideo: Bool

    public init(
        elapsedMs: Int64, iceState: String = "new", connectionState: String = "new", localCandidateType: String? = nil,
        remoteCandidateType: String? = nil, rttSeconds: Double? = nil, jitterSeconds: Double? = nil,
        packetsReceived: UInt64 = 0, packetsLost: Int64 = 0, bytesReceived: UInt64 = 0, bytesSent: UInt64 = 0,
        packetsSent: UInt64 = 0, remotePacketsLost: Int64? = nil, audioLevelDb: Double? = nil,
        videoFramesReceived: UInt64 = 0, remoteAudio: Bool = false, remoteVideo: Bool = false
    ) {
        self.elapsedMs = elapsedMs
        self.iceState = iceState
        self.connectionState = connectionState
        self.localCandidateType = localCandidateType
        self.remoteCandidateType = remoteCandidateType
        self.rttSeconds = rttSeconds
        self.jitterSeconds = jitterSeconds
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.bytesReceived = bytesReceived
        self.bytesSent = bytesSent
        self.packetsSent = packetsSent
        self.remotePacketsLost = remotePacketsLost
        self.audioLevelDb = audioLevelDb
        self.videoFramesReceived = videoFramesReceived
        self.remoteAudio = remoteAudio
        self.remoteVideo = remoteVideo
    }
}
