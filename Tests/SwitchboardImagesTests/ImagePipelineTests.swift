//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardImages
import Testing

/// The four encoded outputs of a processed image, written to files for the reference tools.
func outputs(_ image: ProcessedImage, _ fixtures: Fixtures) throws -> [String] {
    [
        try fixtures.write(image.display.webp, suffix: ".webp"), try fixtures.write(image.display.jpeg, suffix: ".jpg"),
        try fixtures.write(image.thumbnail.webp, suffix: ".webp"),
        try fixtures.write(image.thumbnail.jpeg, suffix: ".jpg"),
    ]
}

/// Expects `body` to throw an ImageError matching `matches`.
func expectImageError(
    _ body: () throws(ImageError) -> Void, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    matches: (ImageError) -> Bool
) {
    do throws(ImageError) {
        try body()
        Issue.record("\(what): no error", sourceLocation: sourceLocation)
    } catch {
        #expect(matches(error), "\(what): \(error)", sourceLocation: sourceLocation)
    }
}

func isCorrupt(_ error: ImageError) -> Bool {
    if case .corrupt = error { return true }
    return false
}

@Suite("ImagePipeline with real files made by vips and exiftool")
struct ImagePipelineTests {
    @Test("a JPEG with EXIF orientation 6 comes out upright, its blue corner at the top right")
    func orientation() throws {
        let fixtures = try Fixtures.get()
        let image = try ImagePipeline.process(bytes: fixtures.bytes("oriented.jpg"))
        #expect(image.format == .jpeg)
        #expect(image.width == 100 && image.height == 200)
        #expect(image.display.width == 100 && image.display.height == 200)
        #expect(image.thumbnail.width == 100 && image.thumbnail.height == 200)
        for file in try outputs(image, fixtures) {
            let topRight = try pixel(file, 90, 10)
            let topLeft = try pixel(file, 10, 10)
            let bottomLeft = try pixel(file, 10, 190)
            #expect(topRight[2] > 200 && topRight[0] < 60, "\(file) top right \(topRight)")
            #expect(topLeft[0] > 200 && topLeft[2] < 60, "\(file) top left \(topLeft)")
            #expect(bottomLeft[0] > 200 && bottomLeft[2] < 60, "\(file) bottom left \(bottomLeft)")
            // No orientation tag is left to rotate it a second time.
            #expect(!(try vipsFields(file)).contains("orientation"), "\(file)")
        }
    }

    @Test("GPS, camera serial, XMP, IPTC and comments are in no output")
    func metadataStripped() throws {
        let fixtures = try Fixtures.get()
        // The input really carries them.
        let input = try exifTags(fixtures.path("gps.jpg"))
        #expect(input["GPS:GPSLatitude"] != nil && input["ExifIFD:SerialNumber"] != nil, "\(input.keys.sorted())")
        #expect(input["XMP-dc:Creator"] != nil && input["IPTC:City"] != nil, "\(input.keys.sorted())")
        let image = try ImagePipeline.process(bytes: fixtures.bytes("gps.jpg"))
        for (file, bytes) in zip(
            try outputs(image, fixtures),
            [image.display.webp, image.display.jpeg, image.thumbnail.webp, image.thumbnail.jpeg])
        {
            let tags = try exifTags(file)
            let leaked = tags.keys.filter { key in
                ["GPS", "IFD0", "IFD1", "ExifIFD", "XMP", "IPTC", "ICC", "MakerNotes", "Photoshop", "File:Comment"]
                    .contains { key.hasPrefix($0) } || key.hasSuffix(":Comment")
            }
            #expect(leaked.isEmpty, "\(file) keeps \(leaked.sorted())")
            let fields = try vipsFields(file)
            for field in ["exif-data", "xmp-data", "iptc-data", "icc-profile-data", "jpeg-comment"] {
                #expect(!fields.contains(field), "\(file) has \(field)")
            }
            for secret in ["SN1234567", "Grandma", "Paris", "home sweet home", "Acme", "Exif"] {
                #expect(!contains(bytes, secret), "\(file) contains \(secret)")
            }
        }
    }

    @Test("with keepMetadata the GPS position stays, and the orientation no longer rotates")
    func metadataKept() throws {
        let fixtures = try Fixtures.get()
        let image = try ImagePipeline.process(bytes: fixtures.bytes("gps.jpg"), keepMetadata: true)
        let tags = try exifTags(try fixtures.write(image.display.jpeg, suffix: ".jpg"))
        #expect(tags["GPS:GPSLatitude"] != nil, "\(tags.keys.sorted())")
        let rotated = try ImagePipeline.process(bytes: fixtures.bytes("oriented.jpg"), keepMetadata: true)
        let orientation = try exifTags(try fixtures.write(rotated.display.jpeg, suffix: ".jpg"))["IFD0:Orientation"]
        #expect(orientation == nil || orientation == "Horizontal (normal)", "orientation \(orientation ?? "-")")
        #expect(rotated.display.width == 100 && rotated.display.height == 200)
    }

    @Test("a PNG with transparency keeps it in WebP and is flattened onto white in JPEG")
    func transparency() throws {
        let fixtures = try Fixtures.get()
        let image = try ImagePipeline.process(bytes: fixtures.bytes("alpha.png"))
        #expect(image.format == .png)
        #expect(image.hasAlpha)
        #expect(image.width == 200 && image.height == 100)
        // Smaller than both sizes: not enlarged.
        #expect(image.display.width == 200 && image.thumbnail.width == 200)
        // Only the opaque (red) half counts.
        #expect(zip(rgb(image.dominantColor), [255, 0, 0]).allSatisfy { abs($0 - $1) <= 2 }, "\(image.dominantColor)")
        let webp = try fixtures.write(image.display.webp, suffix: ".webp")
        let transparent = try pixel(webp, 20, 50)
        let opaque = try pixel(webp, 150, 50)
        #expect(transparent.count == 4 && transparent[3] == 0, "\(transparent)")
        #expect(opaque.count == 4 && opaque[3] == 255 && opaque[0] > 240, "\(opaque)")
        let jpeg = try fixtures.write(image.display.jpeg, suffix: ".jpg")
        let white = try pixel(jpeg, 60, 50)
        #expect(white.count == 3 && white.allSatisfy { $0 > 240 }, "\(white)")
    }

    @Test("WebP input, lossy and lossless with alpha")
    func webp() throws {
        let fixtures = try Fixtures.get()
        let lossy = try ImagePipeline.process(bytes: fixtures.bytes("corner.webp"))
        #expect(lossy.format == .webp && lossy.width == 200 && lossy.height == 100 && !lossy.hasAlpha)
        let corner = try pixel(try fixtures.write(lossy.display.jpeg, suffix: ".jpg"), 5, 5)
        #expect(corner[2] > 200 && corner[0] < 60, "\(corner)")
        let lossless = try ImagePipeline.process(bytes: fixtures.bytes("alpha.webp"))
        #expect(lossless.format == .webp && lossless.hasAlpha)
        #expect(
            zip(rgb(lossless.dominantColor), [255, 0, 0]).allSatisfy { abs($0 - $1) <= 2 }, "\(lossless.dominantColor)")
        let noisy = try ImagePipeline.process(bytes: fixtures.bytes("photo-noise.webp"))
        #expect(noisy.width == 640 && noisy.height == 480 && noisy.thumbnail.width == 320)
    }

    @Test("a progressive JPEG")
    func progressive() throws {
        let fixtures = try Fixtures.get()
        let bytes = try fixtures.bytes("progressive.jpg")
        #expect(try ImageSniffer.header(of: bytes).isProgressive)
        let image = try ImagePipeline.process(bytes: bytes)
        #expect(image.width == 640 && image.height == 480)
        #expect(image.display.width == 640 && image.thumbnail.width == 320 && image.thumbnail.height == 240)
    }

    @Test("HEIC, written by Debian's libvips through libheif, is read; AVIF is refused")
    func heif() throws {
        let fixtures = try Fixtures.get()
        let heic = try ImagePipeline.process(bytes: fixtures.bytes("corner.heic"))
        #expect(heic.format == .heif && heic.width == 200 && heic.height == 100)
        let corner = try pixel(try fixtures.write(heic.display.jpeg, suffix: ".jpg"), 5, 5)
        #expect(corner[2] > 180 && corner[0] < 80, "\(corner)")
        let header = try ImageSniffer.header(of: fixtures.bytes("photo.heic"))
        #expect(header.format == .heif && header.width == 640 && header.height == 480)
        let photo = try ImagePipeline.process(bytes: fixtures.bytes("photo.heic"))
        #expect(photo.thumbnail.width == 320 && photo.thumbnail.height == 240)
        let avif = try fixtures.bytes("corner.avif")
        #expect(throws: ImageError.unsupportedFormat("avif")) { try ImagePipeline.process(bytes: avif) }
    }

    @Test("HEIC has a pixel limit of its own (decoded whole); other formats keep the general one")
    func heifPixelLimit() throws {
        let fixtures = try Fixtures.get()
        let limits = ImageLimits(maxPixels: 1_000_000, maxHeifPixels: 300_000)
        // photo.heic is 640 x 480 = 307,200 pixels: over the HEIF limit, refused before anything is decoded.
        #expect(throws: ImageError.tooManyPixels(width: 640, height: 480)) {
            try ImagePipeline.process(bytes: fixtures.bytes("photo.heic"), limits: limits)
        }
        // The same size as a JPEG is within the general limit.
        #expect(try ImagePipeline.process(bytes: fixtures.bytes("photo.jpg"), limits: limits).width == 640)
        // A HEIF limit above the general one does not raise it.
        let loose = ImageLimits(maxPixels: 300_000, maxHeifPixels: 1_000_000)
        #expect(throws: ImageError.tooManyPixels(width: 640, height: 480)) {
            try ImagePipeline.process(bytes: fixtures.bytes("photo.heic"), limits: loose)
        }
        #expect(ImageLimits(maxHeifPixels: 0).invalidReason == "maxHeifPixels must be at least 1")
    }

    @Test("large images shrink to 1280 and 320; the colour and the hash are right")
    func sizes() throws {
        let fixtures = try Fixtures.get()
        let bytes = try fixtures.bytes("big.jpg")
        let image = try ImagePipeline.process(bytes: bytes)
        #expect(image.width == 3000 && image.height == 2000)
        #expect(image.display.width == 1280 && image.display.height == 853)
        #expect(image.thumbnail.width == 320 && image.thumbnail.height == 213)
        let colour = rgb(image.dominantColor)
        #expect(zip(colour, [30, 120, 200]).allSatisfy { abs($0 - $1) <= 3 }, "\(image.dominantColor)")
        let sum = try run("sha256sum", [fixtures.path("big.jpg")])
        #expect(sum.output.hasPrefix(image.sha256Hex), "\(sum.output) vs \(image.sha256Hex)")
        #expect(image.sha256.count == 32)
        // The outputs are what they claim.
        let webp = try fixtures.write(image.display.webp, suffix: ".webp")
        #expect(try vipsFields(webp).contains("width: 1280"))
        #expect(image.display.webp.starts(with: Array("RIFF".utf8)))
        #expect(image.display.jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        // Smaller sizes are honoured.
        let small = try ImagePipeline.process(bytes: bytes, limits: ImageLimits(displaySize: 300, thumbnailSize: 30))
        #expect(small.display.width == 300 && small.thumbnail.width == 30)
    }

    @Test("grey, CMYK and P3 inputs come out as 8-bit sRGB without a profile")
    func colourSpaces() throws {
        let fixtures = try Fixtures.get()
        let grey = try ImagePipeline.process(bytes: fixtures.bytes("grey.jpg"))
        #expect(grey.width == 640)
        let g = rgb(grey.dominantColor)
        #expect(g[0] == g[1] && g[1] == g[2], "\(grey.dominantColor)")
        for name in ["cmyk.jpg", "p3.jpg"] {
            let image = try ImagePipeline.process(bytes: fixtures.bytes(name))
            let file = try fixtures.write(image.display.jpeg, suffix: ".jpg")
            let fields = try vipsFields(file)
            #expect(fields.contains("bands: 3") && fields.contains("interpretation: srgb"), "\(name): \(fields)")
            #expect(!fields.contains("icc-profile-data"), "\(name) keeps its profile")
            // The red of corner.v, converted back to sRGB by the embedded profile.
            let red = try pixel(file, 150, 50)
            if name == "p3.jpg" {
                // Unconverted P3 values would read about (232, 51, 34).
                #expect(red[0] > 240 && red[1] < 20 && red[2] < 20, "\(name): \(red)")
            } else {
                #expect(red[0] > 200 && red[1] < 80 && red[2] < 80, "\(name): \(red)")
            }
        }
    }

    @Test("pixel bombs are refused from the header alone, fast", arguments: ["png", "jpeg", "webp", "heif"])
    func pixelBomb(kind: String) throws {
        let bomb: [UInt8]
        switch kind {
        case "png": bomb = pngClaiming(width: 100_000, height: 100_000)
        case "jpeg": bomb = jpegClaiming(width: 65_000, height: 65_000)
        case "webp": bomb = webpClaiming(width: 100_000, height: 100_000)
        default: bomb = heifClaiming([(100_000, 100_000)])
        }
        #expect(bomb.count < 200)
        let clock = ContinuousClock()
        let start = clock.now
        let expectedSide = kind == "jpeg" ? 65_000 : 100_000
        #expect(throws: ImageError.tooManyPixels(width: expectedSide, height: expectedSide)) {
            try ImagePipeline.process(bytes: bomb)
        }
        let elapsed = clock.now - start
        #expect(elapsed < .milliseconds(50), "took \(elapsed)")
        // Just over the configured limit is refused too; just under it passes the check (and then fails to decode).
        #expect(throws: ImageError.tooManyPixels(width: 1001, height: 1000)) {
            try ImagePipeline.process(
                bytes: pngClaiming(width: 1001, height: 1000), limits: ImageLimits(maxPixels: 1_000_000))
        }
        let empty1000 = pngClaiming(width: 1000, height: 1000)
        expectImageError(
            { () throws(ImageError) in _ = try ImagePipeline.process(bytes: empty1000) },
            "a 1000 x 1000 PNG with no pixel data", matches: isCorrupt)
    }

    @Test(
        "truncated files are refused as corrupt",
        arguments: ["photo.jpg", "progressive.jpg", "photo.png", "photo-noise.webp", "photo.heic"])
    func truncated(name: String) throws {
        let fixtures = try Fixtures.get()
        let bytes = try fixtures.bytes(name)
        for fraction in [0.95, 0.6, 0.3] {
            let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
            expectImageError(
                { () throws(ImageError) in _ = try ImagePipeline.process(bytes: cut) },
                "\(name) cut to \(cut.count) bytes", matches: isCorrupt)
        }
        let head = Array(bytes.prefix(12))
        expectImageError({ () throws(ImageError) in _ = try ImagePipeline.process(bytes: head) }, "\(name) cut to 12") {
            if case .corrupt = $0 { return true }
            return $0 == .unsupportedFormat("unknown")
        }
    }

    @Test("corrupt data is refused: a PNG with a damaged IDAT, a JPEG with a bogus Huffman table")
    func corrupt() throws {
        let fixtures = try Fixtures.get()
        var png = try fixtures.bytes("photo.png")
        let middle = png.count / 2
        for i in middle..<(middle + 64) { png[i] ^= 0x5A }
        expectImageError(
            { () throws(ImageError) in _ = try ImagePipeline.process(bytes: png) }, "damaged PNG", matches: isCorrupt)

        var jpeg = try fixtures.bytes("photo.jpg")
        guard let dht = (0..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC4 }) else {
            Issue.record("photo.jpg has no DHT")
            return
        }
        // The 16 code-length counts of the first table: all 0xFF claims 4080 codes, more than 256.
        for i in (dht + 5)..<(dht + 21) { jpeg[i] = 0xFF }
        expectImageError(
            { () throws(ImageError) in _ = try ImagePipeline.process(bytes: jpeg) }, "bogus DHT", matches: isCorrupt)

        // Garbage behind each magic number, through libvips too.
        var random = SplitMix64(state: 2026)
        let magics: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8),
            Array(heifClaiming([(64, 64)])),
        ]
        for round in 0..<80 {
            let bytes =
                magics[round % magics.count]
                + (0..<Int.random(in: 0...2000, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            do throws(ImageError) {
                _ = try ImagePipeline.process(bytes: bytes)
            } catch {
                switch error {
                case .corrupt, .unsupportedFormat, .tooManyPixels: break
                default: Issue.record("round \(round): \(error)")
                }
            }
        }
    }

    @Test("GIF, TIFF, empty and oversized uploads are refused before libvips")
    func refusals() throws {
        let fixtures = try Fixtures.get()
        let gif = try fixtures.bytes("corner.gif")
        let tiff = try fixtures.bytes("corner.tif")
        #expect(throws: ImageError.unsupportedFormat("gif")) { try ImagePipeline.process(bytes: gif) }
        #expect(throws: ImageError.unsupportedFormat("tiff")) { try ImagePipeline.process(bytes: tiff) }
        #expect(throws: ImageError.empty) { try ImagePipeline.process(bytes: [UInt8]()) }
        let bytes = try fixtures.bytes("photo.jpg")
        #expect(throws: ImageError.tooLarge(byteCount: bytes.count, limit: 1000)) {
            try ImagePipeline.process(bytes: bytes, limits: ImageLimits(maxInputBytes: 1000))
        }
    }

    @Test("the same bytes hash the same; different bytes do not")
    func dedupHash() throws {
        let fixtures = try Fixtures.get()
        let a = try ImagePipeline.process(bytes: fixtures.bytes("corner.png"))
        let b = try ImagePipeline.process(bytes: fixtures.bytes("corner.png"))
        let c = try ImagePipeline.process(bytes: fixtures.bytes("corner.webp"))
        #expect(a.sha256 == b.sha256 && a.sha256 != c.sha256)
        #expect(a.sha256Hex.count == 64)
    }

    @Test("pipelines run concurrently on several threads")
    func concurrent() async throws {
        let fixtures = try Fixtures.get()
        let inputs = try ["photo.jpg", "alpha.png", "corner.webp", "corner.heic", "progressive.jpg", "big.jpg"].map {
            try fixtures.bytes($0)
        }
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for round in 0..<12 {
                let input = inputs[round % inputs.count]
                group.addTask { try ImagePipeline.process(bytes: input).thumbnail.width }
            }
            var all: [Int] = []
            for try await width in group { all.append(width) }
            return all
        }
        #expect(sizes.count == 12 && sizes.allSatisfy { $0 > 0 })
    }
}
