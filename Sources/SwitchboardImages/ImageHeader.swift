//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a header reader found without decoding any pixel.
public struct ImageHeader: Sendable, Equatable {
    /// The format, from the magic numbers.
    public var format: ImageFormat
    /// Width in pixels as stored (before any EXIF rotation).
    public var width: Int
    /// Height in pixels as stored (before any EXIF rotation).
    public var height: Int
    /// A progressive JPEG or an Adam7-interlaced PNG: the decoder must hold the whole image (or all its
    /// coefficients) at once instead of streaming it row by row, so such files cost more memory.
    public var isProgressive: Bool

    /// Creates a header.
    public init(format: ImageFormat, width: Int, height: Int, isProgressive: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        self.isProgressive = isProgressive
    }

    /// `width * height`, or `nil` if that overflows `Int`.
    public var pixelCount: Int? {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? nil : product
    }
}
