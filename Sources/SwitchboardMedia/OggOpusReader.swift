//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import COpus

/// Reads Ogg/Opus (RFC 7845) through libopusfile, after checking every page ourselves.
///
/// libogg, under libopusfile, skips a page whose CRC does not match and resynchronises, so a corrupted
/// file would decode with a silent gap. We first walk the pages ourselves: the file must be a gap-free
/// sequence of `OggS` pages (version 0, each CRC correct, the first one beginning a stream) with no trailing
/// bytes. Then `op_open_memory` / `op_read_float_stereo` decode at 48 kHz, applying pre-skip, the end-trim
/// from the last granule position and the header's output gain; any channel layout is downmixed to stereo by
/// libopusfile and then averaged to mono by us. A hole in the stream (`OP_HOLE`) is `malformed`.
public enum OggOpusReader {
    /// Decodes a whole Ogg/Opus file to mono Float32 at 48 kHz.
    ///
    /// - Throws: `VoiceError.malformed`, `.unsupportedType` (an Ogg stream that is not Opus).
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(VoiceError) -> DecodedAudio {
        var sink = CollectingSink()
        try decode(bytes, into: &sink)
        return sink.decoded
    }

    /// Decodes a whole Ogg/Opus file, handing mono Float32 chunks at 48 kHz to `sink`.
    ///
    /// - Throws: `VoiceError.malformed`, `.unsupportedType`, or whatever `sink` throws.
    public static func decode<Sink: PCMSink>(_ bytes: UnsafeRawBufferPointer, into sink: inout Sink) throws(VoiceError)
    {
        try validatePages(bytes)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .empty }
        var error: Int32 = 0
        guard let file = op_open_memory(base, bytes.count, &error) else {
            if error == OP_ENOTFORMAT { throw .unsupportedType }
            throw .malformed("Ogg: libopusfile cannot open the stream (\(error))")
        }
        defer { op_free(file) }
        let total = op_pcm_total(file, -1)
        if total < 0 { throw .malformed("Ogg: no valid end granule position (\(total))") }
        let channels = Int(op_channel_count(file, -1))
        try sink.begin(PCMStreamInfo(sampleRate: 48_000, inputChannels: channels, frameCount: Int(total)))
        let maxFrames = 5760
        var stereo = [Float](repeating: 0, count: maxFrames * 2)
        var mono = [Float](repeating: 0, count: maxFrames)
        while true {
            let n = stereo.withUnsafeMutableBufferPointer {
                op_read_float_stereo(file, $0.baseAddress, Int32($0.count))
            }
            if n == 0 { break }
            if n == OP_HOLE { throw .malformed("Ogg: hole in the stream (missing or corrupt pages)") }
            if n < 0 { throw .malformed("Ogg: decode error \(n)") }
            let frames = Int(n)
            for i in 0..<frames { mono[i] = (stereo[2 * i] + stereo[2 * i + 1]) * 0.5 }
            try mono.withUnsafeBufferPointer { (buf) throws(VoiceError) in
                try sink.write(UnsafeBufferPointer(rebasing: buf[0..<frames]))
            }
        }
    }

    /// Checks that `bytes` is a gap-free sequence of Ogg pages with correct CRCs.
    ///
    /// - Throws: `VoiceError.malformed` with the offset of the first bad page.
    static func validatePages(_ bytes: UnsafeRawBufferPointer) throws(VoiceError) {
        let r = ByteReader(bytes: bytes)
        var pos = 0
        var pages = 0
        while pos < bytes.count {
            guard bytes.count - pos >= 27 else { throw .malformed("Ogg: truncated page header at \(pos)") }
            guard r.matches("OggS", at: pos) else { throw .malformed("Ogg: no page at \(pos)") }
            guard bytes[pos + 4] == 0 else { throw .malformed("Ogg: page version \(bytes[pos + 4]) at \(pos)") }
            if pages == 0 && bytes[pos + 5] & 0x02 == 0 {
                throw .malformed("Ogg: first page lacks beginning-of-stream")
            }
            let segments = Int(bytes[pos + 26])
            guard bytes.count - pos - 27 >= segments else { throw .malformed("Ogg: truncated lacing table at \(pos)") }
            var bodySize = 0
            for i in 0..<segments { bodySize += Int(bytes[pos + 27 + i]) }
            let pageSize = 27 + segments + bodySize
            guard bytes.count - pos >= pageSize else { throw .malformed("Ogg: truncated page at \(pos)") }
            let stored = r.u32le(pos + 22)!
            if OggCRC.checksum(UnsafeRawBufferPointer(rebasing: bytes[pos..<(pos + pageSize)])) != stored {
                throw .malformed("Ogg: bad page CRC at \(pos)")
            }
            pos += pageSize
            pages += 1
        }
        if pages == 0 { throw .malformed("Ogg: no pages") }
    }
}
