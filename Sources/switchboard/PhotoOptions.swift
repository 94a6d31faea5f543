//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Photo uploads, processing, the rendition cache and resumable uploads of `serve` (docs/photos.md).
struct PhotoOptions: ParsableArguments {
    @Option(help: "Largest photo upload in bytes. [env: SWITCHBOARD_PHOTO_MAX_BYTES]")
    var photoMaxBytes: Int = envValue("SWITCHBOARD_PHOTO_MAX_BYTES", as: Int.self) ?? 30 * 1024 * 1024

    @Option(
        help:
            "Most pixels a photo's header may claim before it is refused undecoded. [env: SWITCHBOARD_PHOTO_MAX_PIXELS]"
    )
    var photoMaxPixels: Int = envValue("SWITCHBOARD_PHOTO_MAX_PIXELS", as: Int.self) ?? 50_000_000

    @Option(
        help:
            ArgumentHelp(
                "Most pixels of a HEIC (HEIF) photo, decoded whole (about 25 bytes of memory per pixel). "
                    + "[env: SWITCHBOARD_PHOTO_HEIC_MAX_PIXELS]"))
    var photoHeicMaxPixels: Int = envValue("SWITCHBOARD_PHOTO_HEIC_MAX_PIXELS", as: Int.self) ?? 50_000_000

    @Option(help: "HEIC (HEIF) photos decoded at once, on threads of their own. [env: SWITCHBOARD_PHOTO_HEIC_WORKERS]")
    var photoHeicWorkers: Int = envValue("SWITCHBOARD_PHOTO_HEIC_WORKERS", as: Int.self) ?? 1

    @Option(help: "Photos processed at once. [env: SWITCHBOARD_PHOTO_WORKERS]")
    var photoWorkers: Int = envValue("SWITCHBOARD_PHOTO_WORKERS", as: Int.self) ?? ServerConfiguration.coreCount

    @Option(help: "Photos waiting for a worker before uploads get 503. [env: SWITCHBOARD_PHOTO_MAX_WAITING]")
    var photoMaxWaiting: Int = envValue("SWITCHBOARD_PHOTO_MAX_WAITING", as: Int.self) ?? 8

    @Option(help: "Bytes of photo renditions this node caches in memory. [env: SWITCHBOARD_PHOTO_CACHE_BYTES]")
    var photoCacheBytes: Int = envValue("SWITCHBOARD_PHOTO_CACHE_BYTES", as: Int.self) ?? 64 * 1024 * 1024

    @Option(help: "Hours a resumable upload may stay idle before it is removed. [env: SWITCHBOARD_UPLOAD_EXPIRY_HOURS]")
    var uploadExpiryHours: Double = envValue("SWITCHBOARD_UPLOAD_EXPIRY_HOURS", as: Double.self) ?? 24

    @Option(help: "Resumable uploads one user may have in progress. [env: SWITCHBOARD_MAX_PENDING_UPLOADS]")
    var maxPendingUploads: Int = envValue("SWITCHBOARD_MAX_PENDING_UPLOADS", as: Int.self) ?? 10

    @Option(help: "Longest side of the display rendition in pixels. [env: SWITCHBOARD_PHOTO_DISPLAY_SIZE]")
    var photoDisplaySize: Int = envValue("SWITCHBOARD_PHOTO_DISPLAY_SIZE", as: Int.self) ?? 1280

    @Option(help: "Longest side of the thumbnail in pixels. [env: SWITCHBOARD_PHOTO_THUMBNAIL_SIZE]")
    var photoThumbnailSize: Int = envValue("SWITCHBOARD_PHOTO_THUMBNAIL_SIZE", as: Int.self) ?? 320

    @Option(help: "WebP quality of the renditions, 1-100. [env: SWITCHBOARD_PHOTO_WEBP_QUALITY]")
    var photoWebpQuality: Int = envValue("SWITCHBOARD_PHOTO_WEBP_QUALITY", as: Int.self) ?? 80

    @Option(help: "WebP encoder effort, 0 (fastest) to 6 (smallest). [env: SWITCHBOARD_PHOTO_WEBP_EFFORT]")
    var photoWebpEffort: Int = envValue("SWITCHBOARD_PHOTO_WEBP_EFFORT", as: Int.self) ?? 2

    @Option(help: "JPEG quality of the fallback renditions, 1-100. [env: SWITCHBOARD_PHOTO_JPEG_QUALITY]")
    var photoJpegQuality: Int = envValue("SWITCHBOARD_PHOTO_JPEG_QUALITY", as: Int.self) ?? 82

    func validate() throws {
        guard photoMaxBytes >= 1024, photoMaxPixels >= 1, photoWorkers >= 1, photoMaxWaiting >= 0, photoCacheBytes >= 0,
            uploadExpiryHours > 0, maxPendingUploads >= 1, photoHeicMaxPixels >= 1, photoHeicWorkers >= 1
        else {
            throw ValidationError(
                "photo limits: upload at least 1024 bytes, positive pixels, workers, expiry and pending uploads")
        }
        var configuration = ServerConfiguration()
        apply(to: &configuration)
        if let reason = configuration.photos.invalidRenditionSettings {
            throw ValidationError("photo renditions: \(reason)")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.photos.maxBytes = photoMaxBytes
        c.photos.maxPixels = photoMaxPixels
        c.photos.maxHeifPixels = photoHeicMaxPixels
        c.photos.heifWorkers = photoHeicWorkers
        c.photos.workers = photoWorkers
        c.photos.maxWaiting = photoMaxWaiting
        c.photos.cacheBytes = photoCacheBytes
        c.photos.uploadExpirySeconds = uploadExpiryHours * 3600
        c.photos.maxPendingUploads = maxPendingUploads
        c.photos.displaySize = photoDisplaySize
        c.photos.thumbnailSize = photoThumbnailSize
        c.photos.webpQuality = photoWebpQuality
        c.photos.webpEffort = photoWebpEffort
        c.photos.jpegQuality = photoJpegQuality
    }
}
