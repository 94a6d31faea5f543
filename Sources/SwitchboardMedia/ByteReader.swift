//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Little-endian reads with bounds checks, over a borrowed byte buffer.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer

    func u8(_ at: Int) -> UInt8? {
        at >= 0 && at < bytes.count ? bytes[at] : nil
    }

    func u16le(_ at: Int) -> UInt16? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    func u32le(_ at: Int) -> UInt32? {
        guard at >= 0, at <= bytes.count - 4 else { return nil }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
            | UInt32(bytes[at + 3]) << 24
    }

    func u64le(_ at: Int) -> UInt64? {
        guard let lo = u32le(at), let hi = u32le(at + 4) else { return nil }
        return UInt64(lo) | UInt64(hi) << 32
    }

    /// True if the 4 bytes at `at` are the ASCII characters of `tag`.
    func matches(_ tag: StaticString, at: Int) -> Bool {
        let n = tag.utf8CodeUnitCount
        guard at >= 0, at <= bytes.count - n else { return false }
        let p = tag.utf8Start
        for i in 0..<n where bytes[at + i] != p[i] { return false }
        return true
    }
}
