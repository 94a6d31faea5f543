//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The upload formats the photo pipeline accepts, recognised from the bytes (never from a declared type).
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    /// JPEG (JFIF or EXIF; baseline or progressive).
    case jpeg
    /// PNG (with or without transparency; an APNG is read as its first frame).
    case png
    /// WebP (lossy, lossless or extended; an animation is read as its first frame).
    case webp
    /// HEIF with HEVC images: HEIC, what phones write (brands `heic`, `heix`, `heim`, `heis`, `hevc`, `hevx`,
    /// `mif1`, `msf1`). AVIF (HEIF with AV1 images) is refused: see ``ImageSniffer/heifFormat(_:)``.
    case heif

    /// The media type of the format, as a server would label the original.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heif: "image/heic"
        }
    }

    /// The libvips loader class (and its subclasses) that must read this format.
    var vipsLoaderPrefix: String {
        switch self {
        case .jpeg: "VipsForeignLoadJpeg"
        case .png: "VipsForeignLoadPng"
        case .webp: "VipsForeignLoadWebp"
        case .heif: "VipsForeignLoadHeif"
        }
    }
}
