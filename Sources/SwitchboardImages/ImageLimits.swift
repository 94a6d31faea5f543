//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The limits and output settings of the photo pipeline; every one is explicit and has a documented default.
///
/// The values are the server's configuration, not input: ``ImagePipeline`` traps on nonsensical ones (a thumbnail
/// larger than the display size, a quality outside 1-100), so validate flags before building this.
public struct ImageLimits: Sendable, Equatable {
    /// Largest accepted upload in bytes (default 30 MiB: a 48-megapixel phone JPEG is 10-20 MB).
    public var maxInputBytes: Int
    /// Most pixels (width x height as the header claims them) accepted before any decoding (default 50,000,000).
    public var maxPixels: Int
    /// Most pixels of a HEIF (HEIC) image, checked the same way (default 50,000,000, the same as `maxPixels`). HEIF
    /// has no shrink-on-load: libheif decodes the whole picture, about 25 bytes of memory per pixel at the peak
    /// (a 12-megapixel phone HEIC: about 300 MB), so a server short of memory lowers this one.
    public var maxHeifPixels: Int
    /// Longest side of the display rendition in pixels (default 1280); smaller images are not enlarged.
    public var displaySize: Int
    /// Longest side of the thumbnail in pixels (default 320); smaller images are not enlarged.
    public var thumbnailSize: Int
    /// WebP quality 1-100 (default 80).
    public var webpQuality: Int
    /// WebP encoder effort 0-6 (default 4; 0 is fastest, 6 smallest).
    public var webpEffort: Int
    /// JPEG quality 1-100 of the fallback renditions (default 82).
    public var jpegQuality: Int

    /// Creates limits; every parameter has the documented default.
    public init(
        maxInputBytes: Int = 30 * 1024 * 1024,
        maxPixels: Int = 50_000_000,
        maxHeifPixels: Int = 50_000_000,
        displaySize: Int = 1280,
        thumbnailSize: Int = 320,
        webpQuality: Int = 80,
        webpEffort: Int = 4,
        jpegQuality: Int = 82
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxPixels = maxPixels
        self.maxHeifPixels = maxHeifPixels
        self.displaySize = displaySize
        self.thumbnailSize = thumbnailSize
        self.webpQuality = webpQuality
        self.webpEffort = webpEffort
        self.jpegQuality = jpegQuality
    }

    /// Why these limits are unusable, or `nil` if they are fine.
    public var invalidReason: String? {
        if maxInputBytes < 1 { return "maxInputBytes must be at least 1" }
        if maxPixels < 1 { return "maxPixels must be at least 1" }
        if maxHeifPixels < 1 { return "maxHeifPixels must be at least 1" }
        if thumbnailSize < 1 || thumbnailSize > displaySize { return "thumbnailSize must be 1...displaySize" }
        if displaySize > 16_383 { return "displaySize must be at most 16383 (WebP's limit)" }
        if !(1...100).contains(webpQuality) { return "webpQuality must be 1...100" }
        if !(0...6).contains(webpEffort) { return "webpEffort must be 0...6" }
        if !(1...100).contains(jpegQuality) { return "jpegQuality must be 1...100" }
        return nil
    }

    /// Throws ``ImageError/tooManyPixels(width:height:)`` if a header's claimed size is over ``maxPixels`` (for a
    /// HEIF image, also over ``maxHeifPixels``).
    func checkPixels(width: Int, height: Int, format: ImageFormat) throws(ImageError) {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        let limit = format == .heif ? min(maxPixels, maxHeifPixels) : maxPixels
        if overflow || product > limit { throw .tooManyPixels(width: width, height: height) }
    }
}
