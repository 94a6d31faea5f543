//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
