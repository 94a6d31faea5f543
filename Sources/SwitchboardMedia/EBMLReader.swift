//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A strict, minimal EBML element reader over a borrowed buffer (RFC 8794).
///
/// - IDs are 1-4 bytes (the length marker is kept in the value, as Matroska writes IDs: `0x1A45DFA3`);
///   a first byte below `0x10` (a zero-length or over-long ID) is `malformed`.
/// - Sizes are 1-8 bytes; a first byte of 0 is `malformed`; all value bits set means "unknown size",
///   allowed only where the caller says so (Segment and Cluster).
/// - An element may not extend past its parent (or, for children of an unknown-size element, past the
///   grandparent or the file).
struct EBMLReader {
    /// One element header.
    struct Element {
        /// The ID with its length marker, e.g. `0x1A45DFA3`.
        var id: UInt32
        /// Where the element's header starts.
        var start: Int
        /// Where its data starts.
        var dataStart: Int
        /// Where its data ends: `dataStart + size`, or the parent's end for an unknown size.
        var dataEnd: Int
        /// True for the all-ones "unknown size".
        var unknownSize: Bool
        var size: Int { dataEnd - dataStart }
    }

    let bytes: UnsafeRawBufferPointer

    /// Reads an element ID at `pos`, not past `limit`. Returns the ID and its length.
    func readID(at pos: Int, limit: Int) throws(VoiceError) -> (UInt32, Int) {
        guard pos < limit else { throw .malformed("EBML: element ID past its parent at \(pos)") }
        let first = bytes[pos]
        let length = first.leadingZeroBitCount + 1
        guard length <= 4 else { throw .malformed("EBML: invalid element ID at \(pos)") }
        guard limit - pos >= length else { throw .malformed("EBML: element ID past its parent at \(pos)") }
        var id = UInt32(first)
        for i in 1..<length { id = id << 8 | UInt32(bytes[pos + i]) }
        return (id, length)
    }

    /// Reads a variable-length size at `pos`, not past `limit`. Returns `nil` as the value for "unknown".
    func readSize(at pos: Int, limit: Int) throws(VoiceError) -> (UInt64?, Int) {
        guard pos < limit else { throw .malformed("EBML: element size past its parent at \(pos)") }
        let first = bytes[pos]
        guard first != 0 else { throw .malformed("EBML: invalid element size at \(pos)") }
        let length = first.leadingZeroBitCount + 1
        guard limit - pos >= length else { throw .malformed("EBML: element size past its parent at \(pos)") }
        var value = UInt64(first) & (0xFF >> UInt64(length))
        for i in 1..<length { value = value << 8 | UInt64(bytes[pos + i]) }
        let allOnes: UInt64 = (1 << UInt64(7 * length)) - 1
        return (value == allOnes ? nil : value, length)
    }

    /// Reads the element header at `pos`; its data must end by `parentEnd`.
    ///
    /// - Parameter allowUnknownSize: whether this element may have the unknown size (Segment, Cluster).
    func element(at pos: Int, parentEnd: Int, allowUnknownSize: Bool = false) throws(VoiceError) -> Element {
        let (id, idLength) = try readID(at: pos, limit: parentEnd)
        let (size, sizeLength) = try readSize(at: pos + idLength, limit: parentEnd)
        let dataStart = pos + idLength + sizeLength
        guard let size else {
            guard allowUnknownSize else {
                throw .malformed("EBML: unknown size on element 0x\(String(id, radix: 16)) at \(pos)")
            }
            return Element(id: id, start: pos, dataStart: dataStart, dataEnd: parentEnd, unknownSize: true)
        }
        guard size <= UInt64(parentEnd - dataStart) else {
            throw .malformed("EBML: element 0x\(String(id, radix: 16)) at \(pos) is larger than its parent")
        }
        return Element(id: id, start: pos, dataStart: dataStart, dataEnd: dataStart + Int(size), unknownSize: false)
    }

    /// An unsigned integer element (0-8 bytes, big-endian).
    func uint(_ e: Element) throws(VoiceError) -> UInt64 {
        guard e.size <= 8 else { throw .malformed("EBML: integer element 0x\(String(e.id, radix: 16)) too long") }
        var v: UInt64 = 0
        for i in e.dataStart..<e.dataEnd { v = v << 8 | UInt64(bytes[i]) }
        return v
    }

    /// A signed integer element (0-8 bytes, big-endian two's complement).
    func int(_ e: Element) throws(VoiceError) -> Int64 {
        let u = try uint(e)
        guard e.size > 0, e.size < 8 else { return Int64(bitPattern: u) }
        let shift = UInt64(64 - 8 * e.size)
        return Int64(bitPattern: u << shift) >> Int64(shift)
    }

    /// A string element (at most `maxLength` bytes; trailing NULs dropped).
    func string(_ e: Element, maxLength: Int = 256) throws(VoiceError) -> String {
        guard e.size <= maxLength else {
            throw .malformed("EBML: string element 0x\(String(e.id, radix: 16)) too long")
        }
        var chars = Array(UnsafeRawBufferPointer(rebasing: bytes[e.dataStart..<e.dataEnd]))
        while chars.last == 0 { chars.removeLast() }
        return String(decoding: chars, as: UTF8.self)
    }

    /// The DocType of the EBML header at the start of `bytes`, or nil if there is no well-formed header.
    static func docType(_ bytes: UnsafeRawBufferPointer) -> String? {
        let r = EBMLReader(bytes: bytes)
        guard let header = try? r.element(at: 0, parentEnd: bytes.count), header.id == 0x1A45_DFA3 else { return nil }
        var pos = header.dataStart
        while pos < header.dataEnd {
            guard let child = try? r.element(at: pos, parentEnd: header.dataEnd) else { return nil }
            if child.id == 0x4282 { return try? r.string(child) }
            pos = child.dataEnd
        }
        return nil
    }
}
