//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import COpus

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
