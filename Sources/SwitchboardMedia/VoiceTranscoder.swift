//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
