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

    /// Recognises HEIC from the `ftyp` box (ISO 14496-12 4.3): the major brand, then the compatible ones.
    ///
    /// AVIF is refused (`unsupportedFormat("avif")`), by brand here and by item type (`av01`) in
    /// ``heifHeader(_:format:)``: fuzzing found that Debian 12's libheif 1.15 with dav1d 1.0 leaks 40 bytes on every
    /// malformed AV1 item it is asked to decode, so an AV1 decoder reachable from uploads is an unbounded leak (and
    /// more attack surface), and phones write HEIC. Other ISO media files (MP4, QuickTime, 3GP, JPEG 2000) are
    /// refused too.
    static func heifFormat(_ b: ImageBytes) throws(ImageError) -> ImageFormat {
        guard let size = b.u32be(0), let major = b.fourCC(8) else { throw .corrupt("ftyp box is truncated") }
        guard size >= 16, b.has(size, at: 0) else { throw .corrupt("ftyp box size \(size) is out of range") }
        var brands = [major]
        var offset = 16
        while offset + 4 <= size, let brand = b.fourCC(offset) {
            brands.append(brand)
            offset += 4
        }
        if brands.contains(where: { avifBrands.contains($0) }) { throw .unsupportedFormat("avif") }
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

    /// Whether an item information box lists an item of type `av01` (ISO 23008-12 9.2: `iinf` is a full box with a
    /// 16-bit entry count in version 0, 32-bit otherwise; each `infe` of version 2 or 3 has item_ID (16 or 32 bits),
    /// item_protection_index (16) and item_type). Older `infe` versions carry no item type.
    static func hasAV1Item(_ b: ImageBytes, iinf: Box) throws(ImageError) -> Bool {
        guard let version = b.u8(iinf.payload.lowerBound), iinf.payload.count >= 4 else {
            throw .corrupt("HEIF iinf box is truncated")
        }
        let start = iinf.payload.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard start <= iinf.payload.upperBound else { throw .corrupt("HEIF iinf box is truncated") }
        let entries = start..<iinf.payload.upperBound
        var av1 = false
        try forEachBox(b, in: entries) { infe in
            guard infe.type == "infe", let infeVersion = b.u8(infe.payload.lowerBound), infeVersion >= 2 else {
                return true
            }
            let typeOffset = infe.payload.lowerBound + 4 + (infeVersion == 2 ? 2 : 4) + 2
            if typeOffset + 4 <= infe.payload.upperBound, b.fourCC(typeOffset) == "av01" { av1 = true }
            return !av1
        }
        return av1
    }

    /// The largest `ispe` in `meta/iprp/ipco` (HEIF, ISO 23008-12 6.5.3): every image item must have one.
    /// A file with an AV1 item (`infe` of type `av01` in `meta/iinf`) is AVIF whatever its brands say, and refused.
    static func heifHeader(_ b: ImageBytes, format: ImageFormat) throws(ImageError) -> ImageHeader {
        guard let meta = try firstBox("meta", b, in: 0..<b.count) else { throw .corrupt("HEIF without a meta box") }
        // meta is a full box: version (1) and flags (3) before its children.
        guard meta.payload.count >= 4 else { throw .corrupt("HEIF meta box is truncated") }
        let children = (meta.payload.lowerBound + 4)..<meta.payload.upperBound
        if let iinf = try firstBox("iinf", b, in: children), try hasAV1Item(b, iinf: iinf) {
            throw .unsupportedFormat("avif")
        }
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
