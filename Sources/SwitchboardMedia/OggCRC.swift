//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The Ogg page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, initial value 0, no final XOR,
/// computed with the checksum field (bytes 22-25) taken as zero.
enum OggCRC {
    static let table: [UInt32] = (0..<256).map { i -> UInt32 in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func checksum(_ page: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0
        table.withUnsafeBufferPointer { t in
            for (i, byte) in page.enumerated() {
                let b: UInt8 = (22...25).contains(i) ? 0 : byte
                crc = (crc << 8) ^ t[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ b)]
            }
        }
        return crc
    }
}
