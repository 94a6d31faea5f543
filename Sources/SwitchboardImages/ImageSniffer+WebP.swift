//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension ImageSniffer {
    /// Reads a WebP's first chunk: `VP8 ` (lossy, RFC 6386 9.1), `VP8L` (lossless) or `VP8X` (extended: the canvas
    /// size, up to 2^24 on each side).
    static func webpHeader(_ b: ImageBytes) throws(ImageError) -> ImageHeader {
        // "RIFF", size (4), "WEBP", then the first chunk: fourCC (4), size (4), payload at 20.
        guard let chunk = b.fourCC(12), b.has(8, at: 12) else { throw .corrupt("WebP ends before its first chunk") }
        switch chunk {
        case "VP8 ":
            // Frame tag (3, bit 0 clear for a key frame), start code 9D 01 2A, then 14-bit width and height
            // (each with 2 scaling bits on top).
            guard let tag = b.u8(20), b.matches([0x9D, 0x01, 0x2A], at: 23),
                let width = b.u16le(26), let height = b.u16le(28)
            else { throw .corrupt("WebP VP8 frame header is truncated or malformed") }
            guard tag & 1 == 0 else { throw .corrupt("WebP VP8 data does not start with a key frame") }
            return ImageHeader(format: .webp, width: width & 0x3FFF, height: height & 0x3FFF)
        case "VP8L":
            // Signature 0x2F, then 14 bits width - 1, 14 bits height - 1 (little-endian bit order).
            guard b.u8(20) == 0x2F, let bits = b.u32le(21) else {
                throw .corrupt("WebP VP8L header is truncated or malformed")
            }
            return ImageHeader(format: .webp, width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        case "VP8X":
            // Flags (1), reserved (3), canvas width - 1 (3), canvas height - 1 (3).
            guard let width = b.u24le(24), let height = b.u24le(27) else {
                throw .corrupt("WebP VP8X header is truncated")
            }
            return ImageHeader(format: .webp, width: width + 1, height: height + 1)
        default:
            throw .corrupt("WebP's first chunk is \(chunk), not VP8, VP8L or VP8X")
        }
    }
}
