//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Feeds decoded PCM to the encoder and the waveform, enforcing the duration limit.
struct EncodingSink: PCMSink {
    let options: TranscodeOptions
    var info = PCMStreamInfo(sampleRate: 0, inputChannels: 0, frameCount: 0)
    var encoder: OggOpusEncoder?
    var waveform = WaveformBuilder(sampleRate: 48_000)
    var samples = 0

    init(options: TranscodeOptions) { self.options = options }

    mutating func begin(_ info: PCMStreamInfo) throws(VoiceError) {
        self.info = info
        if info.durationMs > options.maxDurationMs { throw .tooLong(durationMs: info.durationMs) }
        if info.frameCount == 0 { throw .empty }
        waveform = WaveformBuilder(sampleRate: info.sampleRate)
        encoder = try OggOpusEncoder(
            sampleRate: info.sampleRate, bitrate: options.bitrate, complexity: options.complexity)
    }

    mutating func write(_ chunk: UnsafeBufferPointer<Float>) throws(VoiceError) {
        samples += chunk.count
        // The readers announce exact counts; this guards against one that delivers more than it announced.
        let ms = durationInMilliseconds(frames: samples, sampleRate: info.sampleRate)
        if ms > options.maxDurationMs { throw .tooLong(durationMs: ms) }
        try encoder?.write(chunk)
        waveform.add(chunk)
    }
}
