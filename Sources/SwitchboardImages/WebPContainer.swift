//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Edits the RIFF container of a WebP file the pipeline has just encoded.
///
/// libvips 8.14.1's webpsave ignores `strip`: it writes an EXIF chunk built from the image's fields (orientation,
/// resolution, colour space) even when every metadata item has been removed from the image. This removes such
/// chunks from the encoder's output, so that a stripped WebP carries no metadata block at all.
enum WebPContainer {
    /// The chunks that carry metadata, and their VP8X flag bits (ICC 0x20, EXIF 0x08, XMP 0x04).
    static let metadataChunks: [String: UInt8] = ["ICCP": 0x20, "EXIF": 0x08, "XMP ": 0x04]

    /// Removes the `EXIF`, `XMP ` and `ICCP` chunks and clears their flags in `VP8X`; every other chunk is copied.
    ///
    /// - Parameter webp: a WebP file.
    /// - Returns: the file without metadata chunks, or `nil` if the container is malformed (a chunk runs past the
    ///   end, or bytes are left over).
    static func removingMetadata(_ webp: [UInt8]) -> [UInt8]? {
        webp.withUnsafeBytes { raw -> [UInt8]? in
            let b = ImageBytes(bytes: raw)
            guard b.matches("RIFF", at: 0), b.matches("WEBP", at: 8) else { return nil }
            var out = Array(webp[0..<12])
            out.reserveCapacity(webp.count)
            var offset = 12
            while offset < webp.count {
                guard let type = b.fourCC(offset), let size = b.u32le(offset + 4) else { return nil }
                let padded = size + (size & 1)
                guard padded <= webp.count - offset - 8 else { return nil }
                let end = offset + 8 + padded
                if type == "VP8X", size >= 1 {
                    var chunk = Array(webp[offset..<end])
                    for flag in metadataChunks.values { chunk[8] &= ~flag }
                    out += chunk
                } else if metadataChunks[type] == nil {
                    out += webp[offset..<end]
                }
                offset = end
            }
            // The RIFF size counts everything after itself.
            let riffSize = out.count - 8
            for i in 0..<4 { out[4 + i] = UInt8(truncatingIfNeeded: riffSize >> (8 * i)) }
            return out
        }
    }
}
