//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension ImageSniffer {
    /// HEIF brands with HEVC (or unspecified) images: what phones write.
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
    /// AVIF brands (HEIF with AV1 images).
    static let avifBrands: Set<String> = ["avif", "avis"]

    /// Decides between HEIC and AVIF from the `ftyp` box (ISO 14496-12 4.3): the major brand, then the compatible
    /// ones. Other ISO media files (MP4, QuickTime, 3GP, JPEG 2000) are refused.
    static func heifFormat(_ b: ImageBytes) throws(ImageError) -> ImageFormat {
        guard let size = b.u32be(0), let major = b.fourCC(8) else { throw .corrupt("ftyp box is truncated") }
        guard size >= 16, b.has(size, at: 0) else { throw .corrupt("ftyp box size \(size) is out of range") }
        var brands = [major]
        var offset = 16
        while offset + 4 <= size, let brand = b.fourCC(offset) {
            brands.append(brand)
            offset += 4
        }
        if brands.contains(where: { avifBrands.contains($0) }) { return .avif }
        if brands.contains(where: { heifBrands.contains($0) }) { return .heif }
        throw .unsupportedFormat(major == "qt  " ? "quicktime" : major.hasPrefix("mp4") ? "mp4" : "iso-media")
    }

    /// One ISO BMFF box: its type and the range of its payload (after the header).
    struct Box {
        var type: String
        var payload: Range<Int>
    }

    /// Calls `body` with each box directly inside `range`, in order, until it returns `false`; each box is checked
    /// to fit in `range` before `body` sees it. Nothing is collected, so a file of millions of tiny boxes costs time
    /// linear in its size and no memory.
    static func forEachBox(
        _ b: ImageBytes, in range: Range<Int>, _ body: (Box) -> Bool
    ) throws(ImageError) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard let size32 = b.u32be(offset), let type = b.fourCC(offset + 4), range.upperBound - offset >= 8 else {
                throw .corrupt("HEIF box header at \(offset) is truncated")
            }
            var headerSize = 8
            var size = size32
            if size32 == 1 {
                guard let size64 = b.u64be(offset + 8) else {
                    throw .corrupt("HEIF box size at \(offset) is truncated")
                }
                headerSize = 16
                size = size64
            } else if size32 == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerSize, size <= range.upperBound - offset else {
                throw .corrupt("HEIF box \(type) at \(offset) has size \(size) outside its parent")
            }
            if !body(Box(type: type, payload: (offset + headerSize)..<(offset + size))) { return }
            offset += size
        }
    }

    /// The first box of a type directly inside `range`.
    static func firstBox(_ type: String, _ b: ImageBytes, in range: Range<Int>) throws(ImageError) -> Box? {
        var found: Box?
        try forEachBox(b, in: range) { box in
            if box.type == type { found = box }
            return found == nil
        }
        return found
    }

    /// The largest `ispe` in `meta/iprp/ipco` (HEIF, ISO 23008-12 6.5.3): every image item must have one.
    static func heifHeader(_ b: ImageBytes, format: ImageFormat) throws(ImageError) -> ImageHeader {
        guard let meta = try firstBox("meta", b, in: 0..<b.count) else { throw .corrupt("HEIF without a meta box") }
        // meta is a full box: version (1) and flags (3) before its children.
        guard meta.payload.count >= 4 else { throw .corrupt("HEIF meta box is truncated") }
        let children = (meta.payload.lowerBound + 4)..<meta.payload.upperBound
        guard let iprp = try firstBox("iprp", b, in: children), let ipco = try firstBox("ipco", b, in: iprp.payload)
        else { throw .corrupt("HEIF without item properties (iprp/ipco)") }
        var best: (width: Int, height: Int, area: UInt64)?
        var truncated = false
        try forEachBox(b, in: ipco.payload) { property in
            guard property.type == "ispe" else { return true }
            // Full box header (4), image_width (4), image_height (4).
            let start = property.payload.lowerBound
            guard property.payload.count >= 12, let width = b.u32be(start + 4), let height = b.u32be(start + 8) else {
                truncated = true
                return false
            }
            // Both are below 2^32, so the product fits in UInt64.
            let area = UInt64(width) * UInt64(height)
            if best == nil || area > best?.area ?? 0 { best = (width, height, area) }
            return true
        }
        if truncated { throw .corrupt("HEIF ispe property is truncated") }
        guard let best else { throw .corrupt("HEIF without an image size (ispe)") }
        return ImageHeader(format: format, width: best.width, height: best.height)
    }
}
