//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import COpus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fields of an `OpusHead` identification header (RFC 7845 section 5.1) that decoding needs.
struct OpusHead: Equatable {
    var channels: Int
    var preSkip: Int
    var inputSampleRate: Int
    /// Output gain in Q7.8 dB.
    var outputGain: Int16
    var mappingFamily: Int

    /// Parses an `OpusHead`; only mapping family 0 (mono or stereo) is accepted.
    ///
    /// - Throws: `VoiceError.malformed` for a short or inconsistent header, `.unsupportedType` for other families.
    init(_ bytes: UnsafeRawBufferPointer) throws(VoiceError) {
        let r = ByteReader(bytes: bytes)
        guard bytes.count >= 19, r.matches("OpusHead", at: 0), let version = r.u8(8), let channels = r.u8(9),
            let preSkip = r.u16le(10), let rate = r.u32le(12), let gain = r.u16le(16), let family = r.u8(18)
        else { throw .malformed("OpusHead: too short or wrong magic") }
        guard version >> 4 == 0 else { throw .malformed("OpusHead: unsupported version \(version)") }
        guard channels > 0 else { throw .malformed("OpusHead: zero channels") }
        guard family == 0 else { throw .unsupportedType }
        guard channels <= 2 else { throw .malformed("OpusHead: \(channels) channels with mapping family 0") }
        self.channels = Int(channels)
        self.preSkip = Int(preSkip)
        self.inputSampleRate = Int(rate)
        self.outputGain = Int16(bitPattern: gain)
        self.mappingFamily = Int(family)
    }

    /// The linear factor for `outputGain`.
    var linearGain: Float {
        outputGain == 0 ? 1 : Float(pow(10, Double(outputGain) / (20 * 256)))
    }
}

/// Owns one libopus decoder (`OpusDecoder *`) at 48 kHz; frees it in `deinit`.
///
/// Not thread-safe: use from one thread at a time (it is created and dropped inside one transcode call).
final class OpusPacketDecoder {
    private let decoder: OpaquePointer
    let channels: Int
    /// Interleaved output of the last `decode`, room for 120 ms.
    private(set) var pcm: [Float]

    /// Creates a decoder at 48 kHz for 1 or 2 channels.
    init(channels: Int) throws(VoiceError) {
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(48_000, Int32(channels), &error), error == OPUS_OK else {
            throw .malformed("Opus: cannot create decoder (\(error))")
        }
        self.decoder = decoder
        self.channels = channels
        self.pcm = [Float](repeating: 0, count: 5760 * channels)
    }

    deinit { opus_decoder_destroy(decoder) }

    /// The number of samples per channel at 48 kHz in `packet`, from its TOC byte (no decoding).
    static func sampleCount(_ packet: UnsafeRawBufferPointer) throws(VoiceError) -> Int {
        guard let base = packet.baseAddress, !packet.isEmpty else { throw .malformed("Opus: empty packet") }
        let n = opus_packet_get_nb_samples(base.assumingMemoryBound(to: UInt8.self), Int32(packet.count), 48_000)
        guard n > 0, n <= 5760 else { throw .malformed("Opus: invalid packet (\(n))") }
        return Int(n)
    }

    /// Decodes one packet into `pcm` (interleaved). Returns the samples per channel.
    func decode(_ packet: UnsafeRawBufferPointer) throws(VoiceError) -> Int {
        guard let base = packet.baseAddress, !packet.isEmpty else { throw .malformed("Opus: empty packet") }
        let n = pcm.withUnsafeMutableBufferPointer { out in
            opus_decode_float(
                decoder, base.assumingMemoryBound(to: UInt8.self), Int32(packet.count), out.baseAddress!, 5760, 0)
        }
        guard n >= 0 else { throw .malformed("Opus: packet does not decode (\(n))") }
        return Int(n)
    }
}
