//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A whole decoded recording: mono Float32 samples at the input's own rate.
public struct DecodedAudio: Sendable, Equatable {
    /// Mono samples, stereo inputs averaged.
    public var samples: [Float]
    /// Samples per second of `samples`.
    public var sampleRate: Int
    /// Channels of the input before downmixing.
    public var inputChannels: Int

    /// The duration in milliseconds, rounded to the nearest.
    public var durationMs: Int { durationInMilliseconds(frames: samples.count, sampleRate: sampleRate) }
}
