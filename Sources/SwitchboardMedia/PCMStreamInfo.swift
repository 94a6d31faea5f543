//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a reader knows about a stream once its headers are parsed, before any sample is delivered.
public struct PCMStreamInfo: Sendable, Equatable {
    /// The rate of the mono samples the reader delivers (the WAV's own rate; 48,000 for Opus).
    public var sampleRate: Int
    /// Channels in the input (before the reader downmixes to mono).
    public var inputChannels: Int
    /// The number of mono samples the reader will deliver, computed from the container before decoding
    /// (WAV data size, Ogg end granule, or the sum of the WebM packets' durations).
    public var frameCount: Int

    /// Creates a stream description.
    public init(sampleRate: Int, inputChannels: Int, frameCount: Int) {
        self.sampleRate = sampleRate
        self.inputChannels = inputChannels
        self.frameCount = frameCount
    }

    /// `frameCount` in milliseconds, rounded to the nearest.
    public var durationMs: Int { durationInMilliseconds(frames: frameCount, sampleRate: sampleRate) }
}
