//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A speech-like recording for voice uploads: a voiced source (a fundamental that glides between 110 and
/// 220 Hz, with its harmonics under a formant-like envelope) cut into syllables of 150-300 ms with short
/// pauses, as 16-bit mono PCM WAV. Each `variant` differs in its samples, so the server's per-uploader
/// deduplication by SHA-256 never skips a transcode.
public enum SyntheticSpeech {
    /// A WAV file (RIFF, PCM 16-bit, mono) of `seconds` at `sampleRate`.
    public static func wav(seconds: Double, sampleRate: Int = 16_000, variant: Int = 0) -> [UInt8] {
        let count = max(1, Int(seconds * Double(sampleRate)))
        var samples = [Int16](repeating: 0, count: count)
        var rng = SplitMix(seed: UInt64(truncatingIfNeeded: variant) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        var i = 0
        var phase = 0.0
        while i < count {
            let syllable = Int((0.15 + 0.15 * rng.unit()) * Double(sampleRate))
            let pause = Int((0.03 + 0.07 * rng.unit()) * Double(sampleRate))
            let f0Start = 110 + 110 * rng.unit(), f0End = 110 + 110 * rng.unit()
            let formant = 500 + 1500 * rng.unit()
            for k in 0..<min(syllable, count - i) {
                let x = Double(k) / Double(syllable)
                let f0 = f0Start + (f0End - f0Start) * x
                phase += 2 * Double.pi * f0 / Double(sampleRate)
                var v = 0.0
                for h in 1...12 {
                    let f = f0 * Double(h)
                    let gain = 1 / (1 + pow((f - formant) / 400, 2))
                    v += gain * sin(Double(h) * phase) / Double(h).squareRoot()
                }
                let envelope = sin(Double.pi * x)
                samples[i + k] = Int16(max(-32767, min(32767, v * envelope * 9000 + (rng.unit() - 0.5) * 200)))
            }
            i += syllable + pause
        }
        return encode(samples, sampleRate: sampleRate)
    }

    static func encode(_ samples: [Int16], sampleRate: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(44 + samples.count * 2)
        func u32(_ v: UInt32) { out += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)] }
        func u16(_ v: UInt16) { out += [UInt8(v & 0xff), UInt8(v >> 8)] }
        let dataBytes = UInt32(samples.count * 2)
        out += Array("RIFF".utf8)
        u32(36 + dataBytes)
        out += Array("WAVEfmt ".utf8)
        u32(16)
        u16(1)  // PCM
        u16(1)  // mono
        u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * 2))
        u16(2)
        u16(16)
        out += Array("data".utf8)
        u32(dataBytes)
        for s in samples { u16(UInt16(bitPattern: s)) }
        return out
    }

    /// A small deterministic generator (SplitMix64).
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }
}
