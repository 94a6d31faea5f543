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

/// Receives the mono Float32 samples a reader decodes, in chunks, so that a whole recording never has to be
/// held in memory as PCM.
public protocol PCMSink {
    /// Called once, before the first `write`, with the stream's parameters. Throw to stop decoding
    /// (for example `VoiceError.tooLong`).
    mutating func begin(_ info: PCMStreamInfo) throws(VoiceError)
    /// Called with the next chunk of mono samples (nominally in -1...1). The buffer is only valid during the call.
    mutating func write(_ samples: UnsafeBufferPointer<Float>) throws(VoiceError)
}

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

/// A sink that keeps every sample: for tests and small inputs.
struct CollectingSink: PCMSink {
    var info = PCMStreamInfo(sampleRate: 0, inputChannels: 0, frameCount: 0)
    var samples: [Float] = []

    mutating func begin(_ info: PCMStreamInfo) throws(VoiceError) {
        self.info = info
        self.samples.reserveCapacity(min(info.frameCount, 1 << 20))
    }

    mutating func write(_ samples: UnsafeBufferPointer<Float>) throws(VoiceError) {
        self.samples.append(contentsOf: samples)
    }

    var decoded: DecodedAudio {
        DecodedAudio(samples: samples, sampleRate: info.sampleRate, inputChannels: info.inputChannels)
    }
}

/// Rounds `frames / sampleRate` seconds to whole milliseconds.
func durationInMilliseconds(frames: Int, sampleRate: Int) -> Int {
    guard sampleRate > 0 else { return 0 }
    return (frames * 1000 + sampleRate / 2) / sampleRate
}

/// Little-endian reads with bounds checks, over a borrowed byte buffer.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer

    func u8(_ at: Int) -> UInt8? {
        at >= 0 && at < bytes.count ? bytes[at] : nil
    }

    func u16le(_ at: Int) -> UInt16? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    func u32le(_ at: Int) -> UInt32? {
        guard at >= 0, at <= bytes.count - 4 else { return nil }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
            | UInt32(bytes[at + 3]) << 24
    }

    func u64le(_ at: Int) -> UInt64? {
        guard let lo = u32le(at), let hi = u32le(at + 4) else { return nil }
        return UInt64(lo) | UInt64(hi) << 32
    }

    /// True if the 4 bytes at `at` are the ASCII characters of `tag`.
    func matches(_ tag: StaticString, at: Int) -> Bool {
        let n = tag.utf8CodeUnitCount
        guard at >= 0, at <= bytes.count - n else { return false }
        let p = tag.utf8Start
        for i in 0..<n where bytes[at + i] != p[i] { return false }
        return true
    }
}
