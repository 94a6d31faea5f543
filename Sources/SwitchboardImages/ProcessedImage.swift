//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The result of ``ImagePipeline/process(bytes:limits:keepMetadata:)-([UInt8],_,_)``.
public struct ProcessedImage: Sendable, Equatable {
    /// The format the upload was read as.
    public var format: ImageFormat
    /// Width of the original in pixels, after rotation by its EXIF orientation.
    public var width: Int
    /// Height of the original in pixels, after rotation by its EXIF orientation.
    public var height: Int
    /// Longest side at most ``ImageLimits/displaySize``.
    public var display: ImageRendition
    /// Longest side at most ``ImageLimits/thumbnailSize``.
    public var thumbnail: ImageRendition
    /// The average colour, weighted by opacity, as `#rrggbb`: a placeholder to paint while the photo loads.
    /// A fully transparent image gives `#ffffff`.
    public var dominantColor: String
    /// Whether the original has an alpha channel (kept in the WebP renditions, flattened in the JPEG ones).
    public var hasAlpha: Bool
    /// SHA-256 of the uploaded bytes (32 bytes), to find the same upload from the same person again.
    public var sha256: [UInt8]

    /// ``sha256`` as 64 lowercase hexadecimal digits.
    public var sha256Hex: String {
        let digits: [Character] = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(64)
        for byte in sha256 {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}
