//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardImages
import Testing

@Suite("ImageSniffer: formats and sizes from headers, without decoding")
struct ImageSnifferTests {
    @Test("magic numbers select the format")
    func magicNumbers() throws {
        #expect(try ImageSniffer.format(of: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(try ImageSniffer.format(of: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(try ImageSniffer.format(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(try ImageSniffer.format(of: heifClaiming([(10, 10)])) == .heif)
        #expect(try ImageSniffer.format(of: heifClaiming([(10, 10)], brand: "heix")) == .heif)
        #expect(throws: ImageError.unsupportedFormat("avif")) {
            try ImageSniffer.format(of: heifClaiming([(10, 10)], brand: "avif"))
        }
    }

    @Test(
        "other formats are refused by name",
        arguments: [
            ("GIF89a\u{1}\u{0}\u{1}\u{0}", "gif"), ("GIF87a....", "gif"), ("BM6\u{0}\u{0}\u{0}", "bmp"),
            ("II*\u{0}\u{8}\u{0}", "tiff"), ("MM\u{0}*\u{0}\u{0}", "tiff"), ("%PDF-1.7", "pdf"),
            ("  <svg xmlns=\"http://www.w3.org/2000/svg\"/>", "svg"), ("<?xml version=\"1.0\"?><svg/>", "svg"),
            ("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ", "riff"), ("hello, world", "unknown"), ("\u{0}", "unknown"),
        ])
    func refused(text: String, kind: String) {
        #expect(throws: ImageError.unsupportedFormat(kind)) { try ImageSniffer.format(of: Array(text.utf8)) }
    }

    @Test("an MP4 is not a HEIF even though it has an ftyp box")
    func mp4() {
        let mp4 = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2mp41".utf8))
        #expect(throws: ImageError.unsupportedFormat("iso-media")) { try ImageSniffer.format(of: mp4) }
    }

    @Test("no bytes is empty")
    func empty() {
        #expect(throws: ImageError.empty) { try ImageSniffer.format(of: [UInt8]()) }
    }

    @Test("JPEG: the SOF after other segments gives the size; SOF2 is progressive")
    func jpeg() throws {
        let baseline = try ImageSniffer.header(of: jpegClaiming(width: 4000, height: 3000))
        #expect(baseline == ImageHeader(format: .jpeg, width: 4000, height: 3000, isProgressive: false))
        let progressive = try ImageSniffer.header(of: jpegClaiming(width: 17, height: 9, marker: 0xC2))
        #expect(progressive == ImageHeader(format: .jpeg, width: 17, height: 9, isProgressive: true))
        // Fill bytes before a marker, and RST markers, are skipped.
        var padded: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF, 0xFF, 0xD0]
        padded += Array(jpegClaiming(width: 5, height: 6).dropFirst(2))
        #expect(try ImageSniffer.header(of: padded).width == 5)
    }

    @Test("JPEG without a frame header, or with a zero size, is corrupt")
    func jpegCorrupt() {
        let cases: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF],  // ends inside a marker
            [0xFF, 0xD8, 0xFF, 0xD9],  // EOI first
            [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02],  // scan first
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00],  // no marker after a segment
            [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01],  // length below 2
            [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xF0, 0x00],  // segment runs past the end
            jpegClaiming(width: 0, height: 10),
            jpegClaiming(width: 10, height: 0),  // DNL
        ]
        for bytes in cases {
            #expect(throws: ImageError.self) { try ImageSniffer.header(of: bytes) }
            do throws(ImageError) {
                _ = try ImageSniffer.header(of: bytes)
            } catch {
                guard case .corrupt = error else {
                    Issue.record("\(bytes) gave \(error)")
                    continue
                }
            }
        }
    }

    @Test("PNG: IHDR gives the size, even a pixel bomb's")
    func png() throws {
        #expect(try ImageSniffer.header(of: pngClaiming(width: 100_000, height: 100_000)).width == 100_000)
        let header = try ImageSniffer.header(of: pngClaiming(width: 3, height: 2))
        #expect(header == ImageHeader(format: .png, width: 3, height: 2))
        #expect(throws: ImageError.self) { try ImageSniffer.header(of: pngClaiming(width: 0x8000_0000, height: 1)) }
        let cut = Array(pngClaiming(width: 3, height: 2).prefix(20))
        #expect(throws: ImageError.self) { try ImageSniffer.header(of: cut) }
    }

    @Test("WebP: VP8X canvas, VP8L and VP8 sizes")
    func webp() throws {
        #expect(try ImageSniffer.header(of: webpClaiming(width: 16_777_216, height: 16_777_216)).height == 16_777_216)
        // VP8L: signature, 14 bits width - 1 = 99, 14 bits height - 1 = 49.
        let bits = 99 | 49 << 14
        let vp8l = Array("RIFF".utf8) + le32(20) + Array("WEBPVP8L".utf8) + le32(5) + [0x2F] + le32(bits)
        #expect(try ImageSniffer.header(of: vp8l) == ImageHeader(format: .webp, width: 100, height: 50))
        // VP8: key-frame tag, start code, 14-bit sizes with scale bits set (ignored).
        let vp8 =
            Array("RIFF".utf8) + le32(30) + Array("WEBPVP8 ".utf8) + le32(10)
            + [0x00, 0x00, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0xC1, 0xF0, 0x40]
        #expect(try ImageSniffer.header(of: vp8) == ImageHeader(format: .webp, width: 320, height: 240))
        let wrongChunk = Array("RIFF".utf8) + le32(12) + Array("WEBPALPH".utf8) + le32(0)
        #expect(throws: ImageError.self) { try ImageSniffer.header(of: wrongChunk) }
    }

    @Test("HEIF: the largest ispe is the size; a file without one is corrupt")
    func heif() throws {
        let header = try ImageSniffer.header(of: heifClaiming([(512, 512), (4032, 3024), (320, 240)]))
        #expect(header == ImageHeader(format: .heif, width: 4032, height: 3024))
        #expect(throws: ImageError.corrupt("HEIF without an image size (ispe)")) {
            try ImageSniffer.header(of: heifClaiming([]))
        }
        // A box claiming more bytes than its parent holds, before meta.
        let heif = heifClaiming([(10, 10)])
        let oversized = Array(heif.prefix(24)) + be32(1000) + Array("free".utf8) + Array(heif.dropFirst(24))
        #expect(throws: ImageError.self) { try ImageSniffer.header(of: oversized) }
    }

    @Test("AVIF is refused by brand, and by an av01 item under a generic brand; HEVC items pass")
    func avif() throws {
        let generic = heifClaiming([(64, 48)], brand: "mif1", itemType: "av01")
        #expect(try ImageSniffer.format(of: generic) == .heif)
        #expect(throws: ImageError.unsupportedFormat("avif")) { try ImageSniffer.header(of: generic) }
        let hevc = try ImageSniffer.header(of: heifClaiming([(64, 48)], itemType: "hvc1"))
        #expect(hevc == ImageHeader(format: .heif, width: 64, height: 48))
        // A truncated iinf is corrupt, not a crash.
        let ftyp = box("ftyp", Array("heicmif1".utf8) + [0, 0, 0, 0])
        let truncated = ftyp + box("meta", [0, 0, 0, 0] + box("iinf", [0]))
        #expect(throws: ImageError.self) { try ImageSniffer.header(of: truncated) }
    }

    @Test("every prefix of every valid header is a result or a typed error")
    func prefixes() {
        let samples = [
            jpegClaiming(width: 640, height: 480), pngClaiming(width: 640, height: 480),
            webpClaiming(width: 640, height: 480), heifClaiming([(640, 480)]),
        ]
        for sample in samples {
            for length in 0...sample.count {
                do throws(ImageError) {
                    let header = try ImageSniffer.header(of: Array(sample.prefix(length)))
                    #expect(header.width == 640 && header.height == 480)
                } catch {
                    switch error {
                    case .empty, .corrupt, .unsupportedFormat: break
                    default: Issue.record("prefix \(length): unexpected \(error)")
                    }
                }
            }
        }
    }

    @Test("random bytes, alone and after each magic number, never crash the header reader")
    func randomBytes() {
        var random = SplitMix64(state: 19)
        let prefixes: [[UInt8]] = [
            [], [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8),
            Array(heifClaiming([(1, 1)]).prefix(24)), [0xFF, 0xD8, 0xFF, 0xC0],
        ]
        var results = 0
        for round in 0..<3000 {
            let prefix = prefixes[round % prefixes.count]
            let count = Int.random(in: 0...600, using: &random)
            let bytes = prefix + (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            do throws(ImageError) {
                let header = try ImageSniffer.header(of: bytes)
                #expect(header.width >= 1 && header.height >= 1)
                results += 1
            } catch {
                switch error {
                case .empty, .corrupt, .unsupportedFormat: break
                default: Issue.record("unexpected \(error)")
                }
            }
        }
        // Most random inputs are refused; some headers (VP8X, PNG IHDR) accept almost any bytes.
        #expect(results < 3000)
    }

    @Test("ImageHeader.pixelCount reports overflow as nil")
    func pixelCount() {
        #expect(ImageHeader(format: .png, width: 100_000, height: 100_000).pixelCount == 10_000_000_000)
        #expect(ImageHeader(format: .png, width: Int.max, height: 2).pixelCount == nil)
    }

    @Test("limits: defaults are valid, nonsense is named")
    func limits() {
        #expect(ImageLimits().invalidReason == nil)
        #expect(ImageLimits(displaySize: 100, thumbnailSize: 200).invalidReason != nil)
        #expect(ImageLimits(webpQuality: 0).invalidReason != nil)
        #expect(ImageLimits(webpEffort: 7).invalidReason != nil)
        #expect(ImageLimits(jpegQuality: 101).invalidReason != nil)
    }

    @Test("errors carry a message, an HTTP status and a wire code")
    func errors() {
        let all: [ImageError] = [
            .empty, .tooLarge(byteCount: 40_000_000, limit: 31_457_280), .unsupportedFormat("gif"),
            .unsupportedFormat("unknown"), .tooManyPixels(width: 100_000, height: 100_000), .corrupt("x"),
            .processingFailed("y"),
        ]
        for error in all {
            #expect(!error.message.isEmpty)
            #expect(!error.wireCode.isEmpty)
            #expect((400...599).contains(error.httpStatus))
        }
        #expect(ImageError.tooLarge(byteCount: 40_000_000, limit: 31_457_280).message.contains("30 MB"))
        #expect(ImageError.unsupportedFormat("gif").message.hasPrefix("GIF images are not supported"))
        #expect(ImageError.tooManyPixels(width: 100_000, height: 100_000).message.contains("100000 x 100000"))
    }
}
