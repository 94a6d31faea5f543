//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Bounds-checked reads from borrowed bytes: every accessor returns `nil` past the end (or for a negative offset),
/// so the header readers never index out of range, whatever the input.
struct ImageBytes {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    /// Whether `length` bytes starting at `offset` are inside the buffer (overflow-safe).
    func has(_ length: Int, at offset: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    func u8(_ offset: Int) -> UInt8? {
        has(1, at: offset) ? bytes[offset] : nil
    }

    func u16be(_ offset: Int) -> Int? {
        guard has(2, at: offset) else { return nil }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    func u16le(_ offset: Int) -> Int? {
        guard has(2, at: offset) else { return nil }
        return Int(bytes[offset + 1]) << 8 | Int(bytes[offset])
    }

    func u24le(_ offset: Int) -> Int? {
        guard has(3, at: offset) else { return nil }
        return Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset])
    }

    func u32be(_ offset: Int) -> Int? {
        guard has(4, at: offset) else { return nil }
        var value = 0
        for i in 0..<4 { value = value << 8 | Int(bytes[offset + i]) }
        return value
    }

    func u32le(_ offset: Int) -> Int? {
        guard has(4, at: offset) else { return nil }
        var value = 0
        for i in (0..<4).reversed() { value = value << 8 | Int(bytes[offset + i]) }
        return value
    }

    /// A 64-bit big-endian value, or `nil` if it is past the end or does not fit in `Int`.
    func u64be(_ offset: Int) -> Int? {
        guard has(8, at: offset) else { return nil }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[offset + i]) }
        return value > UInt64(Int.max) ? nil : Int(value)
    }

    /// Whether the ASCII text appears at `offset`.
    func matches(_ ascii: StaticString, at offset: Int) -> Bool {
        let length = ascii.utf8CodeUnitCount
        guard has(length, at: offset) else { return false }
        let text = UnsafeRawBufferPointer(start: ascii.utf8Start, count: length)
        for i in 0..<length where bytes[offset + i] != text[i] { return false }
        return true
    }

    /// Whether the bytes appear at `offset`.
    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        guard has(expected.count, at: offset) else { return false }
        for (i, byte) in expected.enumerated() where bytes[offset + i] != byte { return false }
        return true
    }

    /// Four bytes at `offset` as text (a box type or brand), non-printable bytes as `?`; `nil` past the end.
    func fourCC(_ offset: Int) -> String? {
        guard has(4, at: offset) else { return nil }
        var text = ""
        for i in 0..<4 {
            let byte = bytes[offset + i]
            text.append((0x20...0x7E).contains(byte) ? Character(Unicode.Scalar(byte)) : "?")
        }
        return text
    }
}
