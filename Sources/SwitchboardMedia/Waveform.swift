//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Telegram-style voice waveforms: 100 values in 0...31, and their 5-bit packing.
public enum Waveform {
    /// Values in a waveform.
    public static let barCount = 100
    /// The largest value.
    public static let maxValue: UInt8 = 31

    /// Packs 5-bit values little-endian into bytes, as Telegram does (100 values -> 63 bytes).
    ///
    /// Value `i` occupies bits `5i ..< 5i+5` of the little-endian bit string; values above 31 are clamped.
    public static func pack5Bit(_ values: [UInt8]) -> [UInt8] {
        let byteCount = (values.count * 5 + 7) / 8
        var out = [UInt8](repeating: 0, count: byteCount + 1)
        for (i, raw) in values.enumerated() {
            let value = UInt16(min(raw, maxValue))
            let bit = i * 5
            let shifted = value << UInt16(bit % 8)
            out[bit / 8] |= UInt8(truncatingIfNeeded: shifted)
            out[bit / 8 + 1] |= UInt8(truncatingIfNeeded: shifted >> 8)
        }
        out.removeLast()
        return out
    }

    /// Unpacks 5-bit values (the inverse of ``pack5Bit(_:)``).
    ///
    /// - Parameters:
    ///   - packed: the packed bytes.
    ///   - count: how many values to read; by default as many as fit (`packed.count * 8 / 5`).
    public static func unpack5Bit(_ packed: [UInt8], count: Int? = nil) -> [UInt8] {
        let n = min(count ?? packed.count * 8 / 5, packed.count * 8 / 5)
        var out: [UInt8] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let bit = i * 5
            let lo = UInt16(packed[bit / 8])
            let hi = bit / 8 + 1 < packed.count ? UInt16(packed[bit / 8 + 1]) : 0
            out.append(UInt8(((lo | hi << 8) >> UInt16(bit % 8)) & 0x1F))
        }
        return out
    }

    /// Computes the waveform of a whole mono signal. See ``WaveformBuilder``.
    public static func compute(_ samples: [Float], sampleRate: Int) -> [UInt8] {
        var builder = WaveformBuilder(sampleRate: sampleRate)
        samples.withUnsafeBufferPointer { builder.add($0) }
        return builder.finish()
    }
}
