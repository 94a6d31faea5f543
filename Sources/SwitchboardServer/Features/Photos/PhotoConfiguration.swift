//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardImages

/// Photo uploads, processing, serving and resumable uploads (see docs/photos.md).
public struct PhotoConfiguration: Sendable {
    /// Largest photo upload in bytes (`--photo-max-bytes`).
    public var maxBytes = 30 * 1024 * 1024
    /// Most pixels a header may claim before anything is decoded (`--photo-max-pixels`).
    public var maxPixels = 50_000_000
    /// Most pixels of a HEIF (HEIC) upload (`--photo-heic-max-pixels`): decoded whole, about 25 bytes per pixel.
    public var maxHeifPixels = 50_000_000
    /// Images processed at once (`--photo-workers`).
    public var workers = ServerConfiguration.coreCount
    /// HEIF (HEIC) images decoded at once (`--photo-heic-workers`), on threads of their own: each holds its whole
    /// decoded picture (about 300 MB for a 12-megapixel phone HEIC), so they are few; the others' workers stay free.
    public var heifWorkers = 1
    /// Images waiting for a worker before uploads get 503 (`--photo-max-waiting`).
    public var maxWaiting = 8
    /// Bytes of renditions this node keeps in memory (`--photo-cache-bytes`).
    public var cacheBytes = 64 * 1024 * 1024
    /// Seconds a resumable upload may stay idle before the sweep removes it (`--upload-expiry-hours`).
    public var uploadExpirySeconds: Double = 24 * 3600
    /// Resumable uploads one user may have in progress (`--max-pending-uploads`).
    public var maxPendingUploads = 10
    /// Longest side of the display rendition in pixels (`--photo-display-size`).
    public var displaySize = 1280
    /// Longest side of the thumbnail in pixels (`--photo-thumbnail-size`).
    public var thumbnailSize = 320
    /// WebP quality 1-100 (`--photo-webp-quality`).
    public var webpQuality = 80
    /// WebP encoder effort 0-6 (`--photo-webp-effort`). 2 rather than libwebp's default 4: the WebP encode is the
    /// largest part of the processing, and effort 4 put a 12-megapixel phone JPEG at p95 331 ms against the 300 ms
    /// budget, effort 2 well under it, for files a few per cent larger (docs/photos.md, Cost; docs/benchmarks.md).
    public var webpEffort = 2
    /// JPEG quality 1-100 of the fallback renditions (`--photo-jpeg-quality`).
    public var jpegQuality = 82

    public init() {}

    /// The pipeline's limits for these settings.
    var imageLimits: ImageLimits {
        ImageLimits(
            maxInputBytes: maxBytes, maxPixels: maxPixels, maxHeifPixels: maxHeifPixels, displaySize: displaySize,
            thumbnailSize: thumbnailSize,
            webpQuality: webpQuality,
            webpEffort: webpEffort, jpegQuality: jpegQuality)
    }

    /// Why the rendition settings are unusable (a thumbnail larger than the display size, a quality out of range...),
    /// or nil.
    public var invalidRenditionSettings: String? { imageLimits.invalidReason }
}
