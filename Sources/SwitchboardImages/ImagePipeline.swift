//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CVips

/// Turns an uploaded photo into what the hub stores and serves: an upright, metadata-free display rendition and
/// thumbnail, each as WebP and JPEG, with the original's size, a placeholder colour and a hash.
///
/// Order of work, cheapest refusal first: size limit; format from the magic numbers; width and height from the
/// header in pure Swift, checked against ``ImageLimits/maxPixels`` (a pixel bomb is refused here, having cost a few
/// header reads); libvips' own header read (only the four accepted loaders are enabled), checked again; then the
/// decode, which fails on corrupt or truncated data.
///
/// - Warning: Synchronous and CPU-heavy (about 230 ms of one core for a 12-megapixel phone JPEG in a release
///   build, more for noisy images; see docs/photos.md): call it only from a bounded worker queue, never from a
///   loop queue. Each call holds the input, the decoded display rendition (1280 x 1280 x 4 bytes at most) and, for
///   progressive JPEGs and interlaced PNGs, the decoder's whole-image buffers; libvips runs each call on one thread
///   (its concurrency is set to 1).
public enum ImagePipeline {
    /// Processes one upload.
    ///
    /// - Parameters:
    ///   - bytes: the whole upload. Its declared content type is deliberately not an input.
    ///   - limits: size limits and output settings (validated with a precondition: they are configuration).
    ///   - keepMetadata: keep EXIF (GPS included), XMP, IPTC and the ICC profile in the outputs. Off by default: the
    ///     outputs then carry no metadata at all. Rotation by the EXIF orientation happens either way.
    /// - Returns: both renditions in both formats, the upright size, the placeholder colour and the SHA-256.
    /// - Throws: ``ImageError``: `empty`, `tooLarge`, `unsupportedFormat`, `tooManyPixels` and `corrupt` are the
    ///   upload's fault; `processingFailed` is the server's.
    public static func process(
        bytes: [UInt8],
        limits: ImageLimits = ImageLimits(),
        keepMetadata: Bool = false
    ) throws(ImageError) -> ProcessedImage {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) in try process(bytes: raw, limits: limits, keepMetadata: keepMetadata) }
        }.get()
    }

    /// Processes one upload from borrowed memory, which must stay valid for the call.
    /// See ``process(bytes:limits:keepMetadata:)-([UInt8],_,_)``.
    public static func process(
        bytes: UnsafeRawBufferPointer,
        limits: ImageLimits = ImageLimits(),
        keepMetadata: Bool = false
    ) throws(ImageError) -> ProcessedImage {
        if let reason = limits.invalidReason { preconditionFailure("invalid ImageLimits: \(reason)") }
        if bytes.isEmpty { throw .empty }
        if bytes.count > limits.maxInputBytes { throw .tooLarge(byteCount: bytes.count, limit: limits.maxInputBytes) }
        let header = try ImageSniffer.header(of: bytes)
        try limits.checkPixels(width: header.width, height: header.height, format: header.format)
        if let failure = VipsRuntime.startupFailure { throw .processingFailed(failure) }
        // Frees libvips' per-thread buffers on this (worker) thread, which libvips did not create.
        defer { vips_thread_shutdown() }
        var result = try render(bytes, format: header.format, limits: limits, keepMetadata: keepMetadata)
        result.sha256 = SHA256.hash(bytes)
        return result
    }

    /// Everything that goes through libvips. Every image made here is released before it returns, so none outlives
    /// `bytes` (libvips reads the upload in place).
    private static func render(
        _ bytes: UnsafeRawBufferPointer,
        format: ImageFormat,
        limits: ImageLimits,
        keepMetadata: Bool
    ) throws(ImageError) -> ProcessedImage {
        guard let base = bytes.baseAddress else { throw .empty }
        // The loader libvips would pick must be the one for the format we recognised.
        guard let found = vips_foreign_find_load_buffer(base, bytes.count) else {
            throw .corrupt("no libvips loader accepts the data: \(VipsRuntime.takeError())")
        }
        let loader = String(cString: found)
        guard loader.hasPrefix(format.vipsLoaderPrefix) else {
            throw .corrupt("recognised as \(format.rawValue) but libvips would load it with \(loader)")
        }

        // libvips' own reading of the header (nothing decoded yet), held to the same limit.
        let original: VipsImageRef
        do throws(VipsFailure) {
            original = try VipsImageRef.header(of: bytes)
        } catch {
            throw .corrupt("header: \(error.message)")
        }
        try limits.checkPixels(width: original.width, height: original.height, format: format)
        let swap = original.orientationSwapsSides
        let width = swap ? original.height : original.width
        let height = swap ? original.width : original.height
        let hasAlpha = original.hasAlpha
        let convertColour = original.hasICCProfile

        // Decode (shrinking on load where the format allows), rotate upright, convert to sRGB: the display rendition,
        // held in memory because four outputs are made from it. Unless kept, its metadata is removed from the image
        // itself (the thumbnail is made from it), not only by the savers' `strip` (which WebP ignores in 8.14.1).
        let display: VipsImageRef
        do throws(VipsFailure) {
            let size = Int32(limits.displaySize)
            var image: VipsImageRef
            if format == .jpeg {
                // vips_thumbnail keeps a factor of two for its own resize and so decodes a 4000 x 3000 JPEG in full
                // for a 1280 rendition; a 2000 x 1500 DCT-scaled decode is about half the work.
                let shrink = jpegShrink(longestSide: max(original.width, original.height), target: limits.displaySize)
                let loaded = try VipsImageRef.make { out in CVips_jpegload_buffer(base, bytes.count, out, shrink) }
                image = try VipsImageRef.make { out in
                    CVips_thumbnail_upright(loaded.pointer, out, size, convertColour ? 1 : 0)
                }
            } else {
                image = try VipsImageRef.make { out in
                    CVips_thumbnail_buffer(base, bytes.count, out, size, convertColour ? 1 : 0)
                }
            }
            if CVips_is_8bit_srgb_or_grey(image.pointer) == 0 {
                let source = image
                image = try VipsImageRef.make { out in CVips_to_8bit_srgb(source.pointer, out) }
            }
            image = try image.copiedToMemory()
            if !keepMetadata {
                let source = image
                image = try VipsImageRef.make { out in CVips_copy_without_metadata(source.pointer, out) }
            }
            display = image
        } catch {
            throw .corrupt(error.message)
        }

        do throws(VipsFailure) {
            let thumbnail = try VipsImageRef.make { out in
                CVips_thumbnail_image(display.pointer, out, Int32(limits.thumbnailSize))
            }.copiedToMemory()
            let colour = try dominantColor(of: thumbnail)
            return ProcessedImage(
                format: format,
                width: width,
                height: height,
                display: try rendition(display, limits: limits, keepMetadata: keepMetadata),
                thumbnail: try rendition(thumbnail, limits: limits, keepMetadata: keepMetadata),
                dominantColor: colour,
                hasAlpha: hasAlpha,
                sha256: []
            )
        } catch {
            throw .processingFailed(error.message)
        }
    }

    /// The largest JPEG decode scale (1/1, 1/2, 1/4, 1/8) that still leaves the longest side at least `target`.
    static func jpegShrink(longestSide: Int, target: Int) -> Int32 {
        var shrink = 1
        while shrink < 8 && longestSide / (shrink * 2) >= target { shrink *= 2 }
        return Int32(shrink)
    }

    /// Encodes one upright sRGB image as WebP (alpha kept) and as JPEG (alpha flattened onto white).
    private static func rendition(
        _ image: VipsImageRef,
        limits: ImageLimits,
        keepMetadata: Bool
    ) throws(VipsFailure) -> ImageRendition {
        let strip: Int32 = keepMetadata ? 0 : 1
        var webp = try image.encoded { image, buffer, length in
            CVips_webpsave_buffer(image, buffer, length, Int32(limits.webpQuality), Int32(limits.webpEffort), strip)
        }
        if !keepMetadata {
            guard let stripped = WebPContainer.removingMetadata(webp) else {
                throw VipsFailure(message: "webpsave wrote a malformed RIFF container")
            }
            webp = stripped
        }
        var opaque = image
        if image.hasAlpha {
            opaque = try VipsImageRef.make { out in CVips_flatten(image.pointer, out, 255, 255, 255) }
        }
        let jpeg = try opaque.encoded { image, buffer, length in
            CVips_jpegsave_buffer(image, buffer, length, Int32(limits.jpegQuality), strip)
        }
        return ImageRendition(width: image.width, height: image.height, webp: webp, jpeg: jpeg)
    }

    /// The mean colour weighted by opacity, as `#rrggbb`, from an 8-bit sRGB or grey image (1 to 4 bands).
    private static func dominantColor(of image: VipsImageRef) throws(VipsFailure) -> String {
        let bands = image.bands
        guard (1...4).contains(bands) else { throw VipsFailure(message: "unexpected band count \(bands)") }
        let pixels = try image.pixels()
        let alpha = bands == 2 || bands == 4
        let colourBands = alpha ? bands - 1 : bands
        var sums: [UInt64] = [0, 0, 0]
        var weight: UInt64 = 0
        var offset = 0
        while offset + bands <= pixels.count {
            let a = alpha ? UInt64(pixels[offset + bands - 1]) : 255
            for channel in 0..<3 {
                let value = colourBands == 1 ? pixels[offset] : pixels[offset + channel]
                sums[channel] += UInt64(value) * a
            }
            weight += a
            offset += bands
        }
        guard weight > 0 else { return "#ffffff" }
        return "#"
            + sums.map { sum in
                let value = (sum + weight / 2) / weight
                let hex = String(value, radix: 16)
                return hex.count == 1 ? "0" + hex : hex
            }.joined()
    }
}
