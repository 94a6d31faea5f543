//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A transcoded voice message.
public struct TranscodedVoice: Sendable, Equatable {
    /// The output: Ogg/Opus, mono, decodes at 48 kHz.
    public var ogg: [UInt8]
    /// The input's exact duration (its sample count at its own rate) in milliseconds, rounded.
    public var durationMs: Int
    /// 100 values in 0...31 (``Waveform``).
    public var waveform: [UInt8]
    /// SHA-256 of `ogg`.
    public var sha256: [UInt8]
    /// `ogg.count`.
    public var byteSize: Int
    /// The container that was read.
    public var inputFormat: AudioFormat
    /// The sample rate the input decoded at (the WAV's rate; 48,000 for Opus inputs).
    public var inputSampleRate: Int
    /// Channels in the input before the downmix to mono.
    public var inputChannels: Int
}
