//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A strict RIFF/WAVE reader: 16/24-bit PCM and 32-bit float, one or two channels, 8-48 kHz.
///
/// Strictness rules (see docs/voice.md):
/// - chunks are walked with bounds checks; an odd-sized chunk is followed by a pad byte (a missing pad
///   byte at the very end of the file is tolerated);
/// - `fmt ` must come before `data`, exactly once, at least 16 bytes (40 for `WAVE_FORMAT_EXTENSIBLE`);
/// - a chunk (or the RIFF size) that declares more bytes than the file holds is `malformed` (truncated),
///   except a `data` size (or RIFF size) of 0 or 0xFFFFFFFF, which streaming writers use for "to the end of the file";
/// - `blockAlign` must equal `channels * bits / 8` and `byteRate` must equal `sampleRate * blockAlign`;
/// - the data must hold a whole number of frames;
/// - zero channels or a zero rate are `malformed`; valid WAVs we do not take (8-bit, mu-law, more than two
///   channels, rates outside 8-48 kHz) are `unsupportedType`.
public enum WAVReader {
    /// A parsed `fmt ` chunk, reduced to what we decode.
    struct Format: Equatable {
        enum Encoding: Equatable {
            case int16
            case int24
            case float32
        }
        var encoding: Encoding
        var channels: Int
        var sampleRate: Int
        var blockAlign: Int
    }

    /// The 14 bytes after the 2-byte format code shared by the KSDATAFORMAT_SUBTYPE_* GUIDs.
    static let guidTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    /// Decodes a whole WAV file to mono Float32 at its own rate.
    ///
    /// - Parameter bytes: the complete file.
    /// - Returns: the samples (stereo averaged) and the rate.
    /// - Throws: `VoiceError.malformed`, `.unsupportedType`.
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(VoiceError) -> DecodedAudio {
        var sink = CollectingSink()
        try decode(bytes, into: &sink)
        return sink.decoded
    }

    /// Decodes a whole WAV file, handing mono Float32 chunks at the file's rate to `sink`.
    ///
    /// - Parameters:
    ///   - bytes: the complete file.
    ///   - sink: receives `begin` once (with the exact frame count), then the samples in chunks.
    /// - Throws: `VoiceError.malformed`, `.unsupportedType`, or whatever `sink` throws.
    public static func decode<Sink: PCMSink>(_ bytes: UnsafeRawBufferPointer, into sink: inout Sink) throws(VoiceError)
    {
        let (format, range) = try parse(bytes)
        let data = UnsafeRawBufferPointer(rebasing: bytes[range])
        let frames = data.count / format.blockAlign
        try sink.begin(PCMStreamInfo(sampleRate: format.sampleRate, inputChannels: format.channels, frameCount: frames))
        let chunkFrames = 4096
        var out = [Float](repeating: 0, count: chunkFrames)
        var frame = 0
        while frame < frames {
            let n = min(chunkFrames, frames - frame)
            out.withUnsafeMutableBufferPointer { dst in
                convert(data, format: format, firstFrame: frame, count: n, into: dst)
            }
            try out.withUnsafeBufferPointer { (buf) throws(VoiceError) in
                try sink.write(UnsafeBufferPointer(rebasing: buf[0..<n]))
            }
            frame += n
        }
    }

    /// Walks the chunks and returns the format and the `data` payload range.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(VoiceError) -> (Format, Range<Int>) {
        let r = ByteReader(bytes: bytes)
        guard r.matches("RIFF", at: 0), r.matches("WAVE", at: 8), let riffSize = r.u32le(4) else {
            if bytes.count < 12 { throw .malformed("WAV: truncated RIFF header") }
            throw .unsupportedType
        }
        let end: Int
        if riffSize == 0 || riffSize == 0xFFFF_FFFF {
            end = bytes.count
        } else if Int(riffSize) + 8 > bytes.count {
            throw .malformed("WAV: RIFF size \(riffSize) exceeds the file (truncated)")
        } else if riffSize < 4 {
            throw .malformed("WAV: RIFF size \(riffSize) too small")
        } else {
            end = Int(riffSize) + 8
        }
        var format: Format?
        var pos = 12
        while pos <= end - 8 {
            guard let size32 = r.u32le(pos + 4) else { break }
            let size = Int(size32)
            let body = pos + 8
            if r.matches("data", at: pos) {
                guard let format else { throw .malformed("WAV: data chunk before fmt chunk") }
                let dataEnd: Int
                if size32 == 0 || size32 == 0xFFFF_FFFF {
                    dataEnd = end
                } else if size > end - body {
                    throw .malformed("WAV: data size \(size) exceeds the file (truncated)")
                } else {
                    dataEnd = body + size
                }
                if (dataEnd - body) % format.blockAlign != 0 {
                    throw .malformed("WAV: data ends in the middle of a sample frame")
                }
                return (format, body..<dataEnd)
            }
            if size > end - body {
                throw .malformed("WAV: chunk size \(size) exceeds the file (truncated)")
            }
            if r.matches("fmt ", at: pos) {
                if format != nil { throw .malformed("WAV: duplicate fmt chunk") }
                format = try parseFormat(r, at: body, size: size)
            }
            pos = body + size + (size & 1)
        }
        if format == nil { throw .malformed("WAV: no fmt chunk") }
        throw .malformed("WAV: no data chunk")
    }

    static func parseFormat(_ r: ByteReader, at p: Int, size: Int) throws(VoiceError) -> Format {
        guard size >= 16, let tag = r.u16le(p), let channels16 = r.u16le(p + 2), let rate = r.u32le(p + 4),
            let byteRate = r.u32le(p + 8), let blockAlign = r.u16le(p + 12), let bits = r.u16le(p + 14)
        else { throw .malformed("WAV: fmt chunk shorter than 16 bytes") }
        let channels = Int(channels16)
        if channels == 0 { throw .malformed("WAV: zero channels") }
        if rate == 0 { throw .malformed("WAV: zero sample rate") }
        if bits == 0 || bits % 8 != 0 { throw .malformed("WAV: \(bits) bits per sample") }
        var code = tag
        if tag == 0xFFFE {
            guard size >= 40, let cbSize = r.u16le(p + 16), cbSize >= 22, let valid = r.u16le(p + 18),
                let sub = r.u16le(p + 24)
            else { throw .malformed("WAV: WAVE_FORMAT_EXTENSIBLE fmt chunk too short") }
            if valid > bits { throw .malformed("WAV: \(valid) valid bits in a \(bits)-bit container") }
            for (i, b) in guidTail.enumerated() where r.u8(p + 26 + i) != b { throw .unsupportedType }
            code = sub
        }
        let encoding: Format.Encoding
        switch (code, bits) {
        case (1, 16): encoding = .int16
        case (1, 24): encoding = .int24
        case (3, 32): encoding = .float32
        default: throw .unsupportedType
        }
        if Int(blockAlign) != channels * Int(bits) / 8 {
            throw .malformed("WAV: block align \(blockAlign) does not match \(channels) x \(bits) bits")
        }
        if UInt64(byteRate) != UInt64(rate) * UInt64(blockAlign) {
            throw .malformed("WAV: byte rate \(byteRate) does not match rate x block align")
        }
        guard channels <= 2, (8000...48000).contains(rate) else { throw .unsupportedType }
        return Format(encoding: encoding, channels: channels, sampleRate: Int(rate), blockAlign: Int(blockAlign))
    }

    /// Converts `count` frames starting at `firstFrame` of `data` to mono Float32 in -1...1.
    static func convert(
        _ data: UnsafeRawBufferPointer,
        format: Format,
        firstFrame: Int,
        count: Int,
        into out: UnsafeMutableBufferPointer<Float>
    ) {
        let base = data.baseAddress! + firstFrame * format.blockAlign
        let channels = format.channels
        let bytesPerSample = format.blockAlign / channels
        let scale = 1 / Float(channels)
        for f in 0..<count {
            var sum: Float = 0
            for c in 0..<channels {
                let p = base + f * format.blockAlign + c * bytesPerSample
                switch format.encoding {
                case .int16:
                    let v = Int16(
                        bitPattern: UInt16(p.load(as: UInt8.self)) | UInt16(p.load(fromByteOffset: 1, as: UInt8.self))
                            << 8)
                    sum += Float(v) * (1 / 32768)
                case .int24:
                    let u =
                        UInt32(p.load(as: UInt8.self)) << 8 | UInt32(p.load(fromByteOffset: 1, as: UInt8.self)) << 16
                        | UInt32(p.load(fromByteOffset: 2, as: UInt8.self)) << 24
                    sum += Float(Int32(bitPattern: u) >> 8) * (1 / 8_388_608)
                case .float32:
                    let u = UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))
                    let v = Float(bitPattern: u)
                    sum += v.isFinite ? max(-1, min(1, v)) : 0
                }
            }
            out[f] = sum * scale
        }
    }
}
