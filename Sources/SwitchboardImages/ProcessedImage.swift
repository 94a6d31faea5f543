//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One size of a processed photo, encoded twice.
public struct ImageRendition: Sendable, Equatable {
    /// Width in pixels (upright).
    public var width: Int
    /// Height in pixels (upright).
    public var height: Int
    /// The rendition as lossy WebP (with alpha if the original had transparency): what clients should fetch.
    public var webp: [UInt8]
    /// The rendition as baseline JPEG (transparency flattened onto white): the fallback for clients without WebP.
    public var jpeg: [UInt8]

    /// Creates a rendition.
    public init(width: Int, height: Int, webp: [UInt8], jpeg: [UInt8]) {
        self.width = width
        self.height = height
        self.webp = webp
        self.jpeg = jpeg
    }
}

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
