//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Recognises an image format from its magic numbers and reads its size from the header, without decoding.
///
/// Pure Swift, no allocation beyond small strings, every read bounds-checked: any input yields a result or an
/// ``ImageError``, never a crash. This is what lets ``ImagePipeline`` refuse a pixel bomb (a tiny file whose header
/// claims 100,000 x 100,000 pixels) before a decoder allocates anything.
public enum ImageSniffer {
    /// Recognises the format from the first bytes. A declared content type is never consulted.
    ///
    /// - Parameter bytes: the upload (the first 32 bytes suffice).
    /// - Returns: the format.
    /// - Throws: ``ImageError/empty`` for no bytes; ``ImageError/unsupportedFormat(_:)`` for anything else, naming
    ///   what it looks like (`gif`, `bmp`, `tiff`, `svg`, `pdf`, `jxl`, `jpeg2000`, `mp4`, `unknown`, ...).
    public static func format(of bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageFormat {
        let b = ImageBytes(bytes: bytes)
        if b.count == 0 { throw .empty }
        if b.matches([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
        if b.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) { return .png }
        if b.matches("RIFF", at: 0) {
            if b.matches("WEBP", at: 8) { return .webp }
            throw .unsupportedFormat("riff")
        }
        if b.matches("ftyp", at: 4) { return try heifFormat(b) }
        throw .unsupportedFormat(otherKind(b))
    }

    /// Recognises the format. See ``format(of:)-(UnsafeRawBufferPointer)``.
    public static func format(of bytes: [UInt8]) throws(ImageError) -> ImageFormat {
        try bytes.withUnsafeBytes { raw in Result { () throws(ImageError) in try format(of: raw) } }.get()
    }

    /// Recognises the format and reads the stored width and height from the header alone.
    ///
    /// JPEG: the first SOFn frame header, walking the marker segments. PNG: IHDR. WebP: the VP8, VP8L or VP8X chunk.
    /// HEIF: the largest `ispe` (image spatial extents) property in `meta/iprp/ipco`, which for a photo is the
    /// primary image (grids are larger than their tiles; thumbnails are smaller); a conservative bound for the pixel
    /// limit either way.
    ///
    /// - Parameter bytes: the whole upload (a JPEG's frame header can follow 64 KiB segments of EXIF).
    /// - Returns: format, stored width and height (before EXIF rotation), and whether it is progressive.
    /// - Throws: ``ImageError/unsupportedFormat(_:)``, ``ImageError/empty``, or ``ImageError/corrupt(_:)`` when the
    ///   header is malformed, truncated or claims a zero size.
    public static func header(of bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
        let format = try Self.format(of: bytes)
        let b = ImageBytes(bytes: bytes)
        let header: ImageHeader
        switch format {
        case .jpeg: header = try jpegHeader(b)
        case .png: header = try pngHeader(b)
        case .webp: header = try webpHeader(b)
        case .heif: header = try heifHeader(b, format: format)
        }
        if header.width < 1 || header.height < 1 {
            throw .corrupt("\(format.rawValue) header claims a size of \(header.width) x \(header.height)")
        }
        return header
    }

    /// Reads the header. See ``header(of:)-(UnsafeRawBufferPointer)``.
    public static func header(of bytes: [UInt8]) throws(ImageError) -> ImageHeader {
        try bytes.withUnsafeBytes { raw in Result { () throws(ImageError) in try header(of: raw) } }.get()
    }

    /// Names formats we refuse, for the error and the logs.
    static func otherKind(_ b: ImageBytes) -> String {
        if b.matches("GIF87a", at: 0) || b.matches("GIF89a", at: 0) { return "gif" }
        if b.matches("BM", at: 0) { return "bmp" }
        if b.matches([0x49, 0x49, 0x2A, 0x00], at: 0) || b.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0) { return "tiff" }
        if b.matches("%PDF", at: 0) { return "pdf" }
        if b.matches("8BPS", at: 0) { return "psd" }
        if b.matches([0x00, 0x00, 0x01, 0x00], at: 0) { return "ico" }
        if b.matches([0xFF, 0x0A], at: 0) || b.matches([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20], at: 0) {
            return "jxl"
        }
        if b.matches([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20], at: 0) || b.matches([0xFF, 0x4F, 0xFF, 0x51], at: 0) {
            return "jpeg2000"
        }
        // SVG and other XML, after optional spaces and a UTF-8 byte order mark.
        var i = b.matches([0xEF, 0xBB, 0xBF], at: 0) ? 3 : 0
        while let byte = b.u8(i), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D, i < 1024 { i += 1 }
        if b.matches("<svg", at: i) || b.matches("<?xml", at: i) { return "svg" }
        return "unknown"
    }
}
