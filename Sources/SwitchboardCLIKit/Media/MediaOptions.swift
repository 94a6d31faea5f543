//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What a call sends, records and reports (the media options of `call` and `listen`).
public struct MediaOptions: Sendable, Equatable {
    /// Where the sent audio comes from.
    public enum AudioSource: Sendable, Equatable {
        /// A sine tone of this frequency (Hz).
        case tone(Double)
        /// A file GStreamer can decode (WAV, Ogg Opus/Vorbis, FLAC, MP3, ...), once or looped.
        case file(String, loop: Bool)
        /// The default microphone (`autoaudiosrc`).
        case microphone
    }

    /// False: signalling only, with a generated SDP (`--no-media`).
    public var enabled: Bool
    public var audio: AudioSource
    /// Send video (a call placed with `--video`, or an answer to a video offer).
    public var video: Bool
    /// A video file to send instead of the test pattern.
    public var videoFile: String?
    /// Where to record the received audio: `.wav` decoded PCM, anything else Ogg/Opus as received.
    public var record: String?
    /// Where to record the received video (WebM, VP8 as received).
    public var recordVideo: String?
    /// ICE only through TURN relays.
    public var relayOnly: Bool
    /// Hang up this many seconds after media starts flowing.
    public var hangupAfter: Double?
    /// Seconds between two quality lines.
    public var statsInterval: Double
    /// The only local addresses host candidates come from (loopback allowed); empty: every interface but loopback.
    public var iceAddresses: [String]

    public init(
        enabled: Bool = true, audio: AudioSource = .tone(440), video: Bool = false, videoFile: String? = nil,
        record: String? = nil, recordVideo: String? = nil, relayOnly: Bool = false, hangupAfter: Double? = nil,
        statsInterval: Double = 1, iceAddresses: [String] = []
    ) {
        self.enabled = enabled
        self.audio = audio
        self.video = video
        self.videoFile = videoFile
        self.record = record
        self.recordVideo = recordVideo
        self.relayOnly = relayOnly
        self.hangupAfter = hangupAfter
        self.statsInterval = statsInterval
        self.iceAddresses = iceAddresses
    }

    /// Signalling only (the pseudo-terminal tests' and `--no-media`'s behaviour).
    public static let signallingOnly = MediaOptions(enabled: false)

    /// Longest audio file played (longer files are cut): 10 minutes of 48 kHz mono, 57.6 MB.
    public static let maxPlaySeconds = 600
}
