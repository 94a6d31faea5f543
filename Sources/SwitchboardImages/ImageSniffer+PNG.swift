//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension ImageSniffer {
    /// Reads a PNG's IHDR chunk, which must come first (PNG 1.2, 11.2.2).
    static func pngHeader(_ b: ImageBytes) throws(ImageError) -> ImageHeader {
        // Signature (8), length (4) = 13, "IHDR", width (4), height (4), depth, colour type, compression, filter,
        // interlace.
        guard b.u32be(8) == 13, b.matches("IHDR", at: 12) else { throw .corrupt("PNG does not start with IHDR") }
        guard let width = b.u32be(16), let height = b.u32be(20), let interlace = b.u8(28) else {
            throw .corrupt("PNG IHDR is truncated")
        }
        // The format caps both at 2^31 - 1.
        guard width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw .corrupt("PNG IHDR size \(width) x \(height) is out of range")
        }
        return ImageHeader(format: .png, width: width, height: height, isProgressive: interlace == 1)
    }
}
