//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import COpenSSL

/// Settings and limits of one transcode.
public struct TranscodeOptions: Sendable, Equatable {
    /// Target VBR bitrate of the output in bit/s (default 24,000).
    public var bitrate: Int
    /// Opus encoder complexity 0-10 (default 10; 5 is about 1.5x faster).
    public var complexity: Int
    /// Longest accepted recording in milliseconds (default 300,000: 5 minutes).
    public var maxDurationMs: Int
    /// Largest accepted input in bytes (default 20 MiB). The server also enforces its own limit while streaming.
    public var maxInputBytes: Int

    /// Creates options; every parameter has the documented default.
    public init(
        bitrate: Int = 24_000,
        complexity: Int = 10,
        maxDurationMs: Int = 300_000,
        maxInputBytes: Int = 20 * 1024 * 1024
    ) {
        self.bitrate = bitrate
        self.complexity = complexity
        self.maxDurationMs = maxDurationMs
        self.maxInputBytes = maxInputBytes
    }
}

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

/// Turns an uploaded recording (WAV, Ogg/Opus, WebM/Opus) into the hub's one voice format.
///
/// Pure and synchronous: no I/O, no shared state. Call it from a bounded worker pool; each call holds the input,
/// about 16 KiB of PCM at a time (decode and encode are streamed), the waveform blocks (1.2 MB for 5 minutes)
/// and the output.
public enum VoiceTranscoder {
    /// Transcodes one recording.
    ///
    /// - Parameters:
    ///   - input: the whole upload.
    ///   - declaredType: the request's `Content-Type`, if any. The content decides when it is recognisable.
    ///   - options: bitrate, complexity and limits.
    /// - Returns: the Ogg/Opus file with its duration, waveform and hash.
    /// - Throws: ``VoiceError`` (see ``VoiceError/httpStatus``).
    public static func transcode(
        _ input: [UInt8],
        declaredType: String?,
        options: TranscodeOptions = TranscodeOptions()
    ) throws(VoiceError) -> TranscodedVoice {
        try input.withUnsafeBytes { bytes in
            Result { () throws(VoiceError) in try transcode(bytes, declaredType: declaredType, options: options) }
        }.get()
    }

    /// Transcodes one recording from borrowed memory. See ``transcode(_:declaredType:options:)-([UInt8],_,_)``.
    public static func transcode(
        _ input: UnsafeRawBufferPointer,
        declaredType: String?,
        options: TranscodeOptions = TranscodeOptions()
    ) throws(VoiceError) -> TranscodedVoice {
        if input.isEmpty { throw .empty }
        if input.count > options.maxInputBytes { throw .tooLarge }
        let format = try AudioFormat.resolve(input, declaredType: declaredType)
        var sink = EncodingSink(options: options)
        switch format {
        case .wav: try WAVReader.decode(input, into: &sink)
        case .oggOpus: try OggOpusReader.decode(input, into: &sink)
        case .webmOpus: try WebMOpusReader.decode(input, into: &sink)
        }
        guard let encoder = sink.encoder, sink.samples > 0 else { throw .empty }
        let ogg = try encoder.finish()
        return TranscodedVoice(
            ogg: ogg,
            durationMs: durationInMilliseconds(frames: sink.samples, sampleRate: sink.info.sampleRate),
            waveform: sink.waveform.finish(),
            sha256: SHA256.hash(ogg),
            byteSize: ogg.count,
            inputFormat: format,
            inputSampleRate: sink.info.sampleRate,
            inputChannels: sink.info.inputChannels
        )
    }
}

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

/// SHA-256 through OpenSSL's EVP interface.
enum SHA256 {
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return Array(digest.prefix(32))
    }
}
