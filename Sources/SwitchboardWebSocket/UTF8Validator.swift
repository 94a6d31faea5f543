//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An incremental UTF-8 validator (RFC 3629): refuses overlong forms, surrogates and code points past
/// U+10FFFF at the first byte that makes the sequence invalid, so a text message split over frames
/// (or over TCP segments of one frame) fails as soon as the bad byte arrives.
public struct UTF8Validator: Sendable {
    /// Continuation bytes still expected.
    private var needed: UInt8 = 0
    /// Bounds of the next continuation byte (narrowed after lead bytes E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    public init() {}

    /// Whether the bytes so far end on a character boundary.
    public var isComplete: Bool { needed == 0 }

    public mutating func reset() {
        needed = 0
        lower = 0x80
        upper = 0xBF
    }

    /// Validates more bytes; false as soon as a byte is invalid.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        while i < count {
            if needed == 0 {
                // ASCII fast path, eight bytes at a time.
                while i + 8 <= count {
                    let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    i += 8
                }
                if i >= count { break }
                let b = base.load(fromByteOffset: i, as: UInt8.self)
                i += 1
                switch b {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: needed = 1; lower = 0x80; upper = 0xBF
                case 0xE0: needed = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2; lower = 0x80; upper = 0xBF
                case 0xED: needed = 2; lower = 0x80; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: needed = 3; lower = 0x80; upper = 0xBF
                case 0xF4: needed = 3; lower = 0x80; upper = 0x8F
                default: return false
                }
            } else {
                let b = base.load(fromByteOffset: i, as: UInt8.self)
                i += 1
                guard b >= lower && b <= upper else { return false }
                needed -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    /// Validates a whole byte array.
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        var v = UTF8Validator()
        return bytes.withUnsafeBytes { v.validate($0) } && v.isComplete
    }
}
