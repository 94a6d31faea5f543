//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import COpus

/// Collects the bytes libopusenc writes; handed to the C callbacks as unretained user data.
private final class EncodedBytes {
    var bytes: [UInt8] = []
}

/// Owns one libopusenc encoder (`OggOpusEnc *`) writing mono Ogg/Opus into memory; destroys it in `deinit`.
///
/// libopusenc resamples the input rate to 48 kHz itself (its speex resampler) and writes the input rate
/// into `OpusHead`; on `finish()` it drains, setting the last page's granule position so that the decoded
/// length equals the input length. Not thread-safe: one owner at a time.
final class OggOpusEncoder {
    private let encoder: OpaquePointer
    private let output: EncodedBytes

    /// Creates an encoder for mono input at `sampleRate` with our voice settings.
    ///
    /// - Parameters:
    ///   - sampleRate: the input rate (8,000-48,000; libopusenc resamples).
    ///   - bitrate: target VBR bitrate in bit/s.
    ///   - complexity: 0-10.
    /// - Throws: `VoiceError.encoderFailure` with libopusenc's error code.
    init(sampleRate: Int, bitrate: Int, complexity: Int) throws(VoiceError) {
        let output = EncodedBytes()
        self.output = output
        var callbacks = OpusEncCallbacks(
            write: { user, ptr, len in
                guard let user, let ptr, len >= 0 else { return 1 }
                let sink = Unmanaged<EncodedBytes>.fromOpaque(user).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: ptr, count: Int(len)))
                return 0
            },
            close: { _ in 0 }
        )
        guard let comments = ope_comments_create() else { throw .encoderFailure(OPE_ALLOC_FAIL) }
        defer { ope_comments_destroy(comments) }
        var error: Int32 = 0
        guard
            let encoder = ope_encoder_create_callbacks(
                &callbacks,
                Unmanaged.passUnretained(output).toOpaque(),
                comments,
                Int32(sampleRate),
                1,
                0,
                &error
            ), error == OPE_OK
        else { throw .encoderFailure(error) }
        self.encoder = encoder
        // Application first: it must be set before the first write.
        try Self.check(COpus_ope_set_application(encoder, OPUS_APPLICATION_VOIP))
        try Self.check(COpus_ope_set_signal(encoder, OPUS_SIGNAL_VOICE))
        try Self.check(COpus_ope_set_vbr(encoder, 1))
        try Self.check(COpus_ope_set_bitrate(encoder, Int32(clamping: bitrate)))
        try Self.check(COpus_ope_set_complexity(encoder, Int32(clamping: complexity)))
        try Self.check(COpus_ope_set_frame_duration(encoder, OPUS_FRAMESIZE_20_MS))
        // A fixed serial number makes the output a pure function of the input (same recording, same SHA-256).
        try Self.check(COpus_ope_set_serialno(encoder, 0x5342_5644))
        try Self.check(COpus_ope_set_comment_padding(encoder, 0))
    }

    deinit { ope_encoder_destroy(encoder) }

    private static func check(_ code: Int32) throws(VoiceError) {
        if code != OPE_OK { throw .encoderFailure(code) }
    }

    /// Encodes mono samples at the input rate.
    func write(_ samples: UnsafeBufferPointer<Float>) throws(VoiceError) {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        try Self.check(ope_encoder_write_float(encoder, base, Int32(samples.count)))
    }

    /// Flushes the encoder and returns the complete Ogg/Opus file.
    func finish() throws(VoiceError) -> [UInt8] {
        try Self.check(ope_encoder_drain(encoder))
        return output.bytes
    }
}
