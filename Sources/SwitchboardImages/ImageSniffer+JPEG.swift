//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension ImageSniffer {
    /// Walks a JPEG's marker segments (ITU T.81 B.1.1) to the first frame header (SOFn) and reads its size.
    ///
    /// Segments are skipped by their length fields; fill bytes (0xFF runs) and the standalone markers (TEM,
    /// RST0-7) carry no length. A scan (SOS) or the end (EOI) before any frame header is malformed.
    static func jpegHeader(_ b: ImageBytes) throws(ImageError) -> ImageHeader {
        guard b.matches([0xFF, 0xD8], at: 0) else { throw .corrupt("JPEG without SOI") }
        var offset = 2
        while true {
            guard let first = b.u8(offset) else { throw .corrupt("JPEG ends before its frame header") }
            guard first == 0xFF else { throw .corrupt("JPEG segment at \(offset) does not start with a marker") }
            offset += 1
            while b.u8(offset) == 0xFF { offset += 1 }
            guard let marker = b.u8(offset) else { throw .corrupt("JPEG ends inside a marker") }
            offset += 1
            switch marker {
            case 0x01, 0xD0...0xD7:
                continue
            case 0xD8:
                throw .corrupt("JPEG has a second SOI before its frame header")
            case 0xD9:
                throw .corrupt("JPEG ends (EOI) before its frame header")
            case 0xDA:
                throw .corrupt("JPEG scan (SOS) before its frame header")
            default:
                break
            }
            guard let length = b.u16be(offset) else { throw .corrupt("JPEG ends inside a segment length") }
            guard length >= 2 else { throw .corrupt("JPEG segment length \(length) at \(offset)") }
            if isStartOfFrame(marker) {
                // Lf (2), P (1), Y (2), X (2), Nf (1).
                guard length >= 8, let height = b.u16be(offset + 3), let width = b.u16be(offset + 5) else {
                    throw .corrupt("JPEG frame header is truncated")
                }
                if height == 0 { throw .corrupt("JPEG height defined by a DNL marker is not supported") }
                let progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE
                return ImageHeader(format: .jpeg, width: width, height: height, isProgressive: progressive)
            }
            offset += length
        }
    }

    /// SOF0-3, 5-7, 9-11, 13-15 (0xC4 is DHT, 0xC8 is reserved, 0xCC is DAC).
    static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }
}
