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

/// Runs an installed tool; returns its exit status, standard output and standard error.
@discardableResult
func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes to the end before waiting (stderr first would deadlock on a full stdout pipe).
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
    )
}

/// Whether a tool is on PATH.
func hasTool(_ tool: String) -> Bool {
    (try? run("which", [tool]).status) == 0
}

struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The tools the photo tests need. A missing one fails the tests (CI installs them with `scripts/deps.sh --test`).
let requiredImageTools = ["vips", "vipsheader", "exiftool", "sha256sum"]

/// Images made once per test run with libvips' command-line tools and exiftool, in a temporary folder.
final class Fixtures: Sendable {
    let dir: URL

    /// Made on first use; the error names what is missing or what failed.
    private static let made: Result<Fixtures, FixtureError> = {
        let missing = requiredImageTools.filter { !hasTool($0) }
        if !missing.isEmpty {
            return .failure(
                FixtureError(
                    message: "missing image tools: \(missing.joined(separator: ", ")); install libvips-tools and "
                        + "libimage-exiftool-perl (scripts/deps.sh --test)"))
        }
        do { return .success(try Fixtures()) } catch let error as FixtureError { return .failure(error) } catch {
            return .failure(FixtureError(message: "cannot make image fixtures: \(error)"))
        }
    }()

    /// The fixtures, or a thrown error that fails the calling test with the reason.
    static func get() throws -> Fixtures { try made.get() }

    private init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-images-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // corner.v: 200 x 100 red with a 40 x 40 blue square in the top-left corner.
        try vips("black", "black3.v", "200", "100", "--bands", "3")
        try vips("linear", "black3.v", "red.v", "1 1 1", "255 0 0", "--uchar")
        try vips("black", "black40.v", "40", "40", "--bands", "3")
        try vips("linear", "black40.v", "blue.v", "1 1 1", "0 0 255", "--uchar")
        try vips("insert", "red.v", "blue.v", "corner.v", "0", "0")
        // Stored 200 x 100, to be shown rotated 90 degrees clockwise (EXIF orientation 6).
        try vips("jpegsave", "corner.v", "oriented.jpg", "--Q", "95")
        try tool("exiftool", "-q", "-overwrite_original", "-n", "-Orientation=6", path("oriented.jpg"))
        // A 640 x 480 noisy "photo" (large enough to truncate meaningfully), with where it was taken and more.
        try vips("gaussnoise", "noise.v", "640", "480", "--mean", "128", "--sigma", "50")
        try vips("linear", "noise.v", "noise-r.v", "1", "40")
        try vips("bandjoin", "noise-r.v noise.v noise.v", "noise3.v")
        try vips("cast", "noise3.v", "photo.v", "uchar")
        try vips("jpegsave", "photo.v", "photo.jpg", "--Q", "90")
        try FileManager.default.copyItem(at: url("photo.jpg"), to: url("gps.jpg"))
        try tool(
            "exiftool", "-q", "-overwrite_original", "-GPSLatitude=48.858370", "-GPSLatitudeRef=N",
            "-GPSLongitude=2.294481", "-GPSLongitudeRef=E", "-Make=Acme", "-Model=Phone 1", "-SerialNumber=SN1234567",
            "-XMP-dc:Creator=Grandma Smith", "-IPTC:City=Paris", "-Comment=home sweet home", path("gps.jpg"))
        try vips("jpegsave", "photo.v", "progressive.jpg", "--interlace")
        try vips("cast", "noise.v", "grey.v", "uchar")
        try vips("jpegsave", "grey.v", "grey.jpg")
        try vips("pngsave", "photo.v", "photo.png")
        try vips("webpsave", "photo.v", "photo-noise.webp")
        // alpha.png: corner.v with its left half fully transparent and its right half opaque.
        try vips("black", "alpha0.v", "200", "100")
        try vips("black", "alpha-half.v", "100", "100")
        try vips("linear", "alpha-half.v", "alpha255.v", "1", "255", "--uchar")
        try vips("cast", "alpha0.v", "alpha0u.v", "uchar")
        try vips("insert", "alpha0u.v", "alpha255.v", "alpha.v", "100", "0")
        try vips("bandjoin", "corner.v alpha.v", "rgba.v")
        try vips("pngsave", "rgba.v", "alpha.png")
        try vips("webpsave", "corner.v", "corner.webp", "--Q", "95")
        try vips("webpsave", "rgba.v", "alpha.webp", "--lossless")
        try vips("pngsave", "corner.v", "corner.png")
        // A P3-tagged JPEG (its pixels are P3 values) and a CMYK one.
        try vips("icc_transform", "corner.v", "p3.v", "p3", "--embedded")
        try vips("jpegsave", "p3.v", "p3.jpg", "--Q", "95")
        try vips("icc_export", "corner.v", "cmyk.jpg", "--output-profile", "cmyk")
        // 3000 x 2000 solid colour: the renditions are shrunk to 1280 and 320.
        try vips("black", "big0.v", "3000", "2000", "--bands", "3")
        try vips("linear", "big0.v", "big.v", "1 1 1", "30 120 200", "--uchar")
        try vips("jpegsave", "big.v", "big.jpg")
        // HEIC (HEVC through libheif and x265) as Debian's libvips writes it, and AVIF, which is refused.
        try vips("heifsave", "corner.v", "corner.heic", "--compression", "hevc", "--Q", "90")
        try vips("heifsave", "photo.v", "photo.heic", "--compression", "hevc")
        try vips("heifsave", "corner.v", "corner.avif", "--compression", "av1", "--Q", "90")
        try vips("gifsave", "corner.v", "corner.gif")
        try vips("tiffsave", "corner.v", "corner.tif")
        // The uncompressed intermediates are 40 MB; the files the tests read are a few.
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) where file.hasSuffix(".v") {
            try FileManager.default.removeItem(at: url(file))
        }
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    func url(_ name: String) -> URL { dir.appendingPathComponent(name) }
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(name))) }

    /// Writes bytes to a fresh file in the fixture folder and returns its path.
    func write(_ bytes: [UInt8], suffix: String) throws -> String {
        let file = dir.appendingPathComponent("\(UUID().uuidString)\(suffix)")
        try Data(bytes).write(to: file)
        return file.path
    }

    private func vips(_ operation: String, _ arguments: String...) throws {
        // File names (alone or in a space-separated list) are made relative to the fixture folder.
        let extensions: Set<String> = ["v", "jpg", "png", "webp", "heic", "avif", "gif", "tif"]
        func isFile(_ word: Substring) -> Bool {
            guard let dot = word.lastIndex(of: ".") else { return false }
            return extensions.contains(String(word[word.index(after: dot)...]))
        }
        let resolved = arguments.map { argument in
            let words = argument.split(separator: " ")
            guard !words.isEmpty, words.allSatisfy(isFile) else { return argument }
            return words.map { path(String($0)) }.joined(separator: " ")
        }
        try tool("vips", [operation] + resolved)
    }

    private func tool(_ name: String, _ arguments: String...) throws {
        try tool(name, arguments)
    }

    private func tool(_ name: String, _ arguments: [String]) throws {
        let result = try run(name, arguments)
        if result.status != 0 {
            throw FixtureError(message: "\(name) \(arguments.joined(separator: " ")) failed: \(result.errors)")
        }
    }
}

/// `vips getpoint` at (x, y) of an image file: the band values.
func pixel(_ file: String, _ x: Int, _ y: Int) throws -> [Double] {
    let result = try run("vips", ["getpoint", file, "\(x)", "\(y)"])
    guard result.status == 0 else { throw FixtureError(message: "vips getpoint failed: \(result.errors)") }
    return result.output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
}

/// `vipsheader -a`: every metadata field libvips sees in a file, one per line.
func vipsFields(_ file: String) throws -> String {
    let result = try run("vipsheader", ["-a", file])
    guard result.status == 0 else { throw FixtureError(message: "vipsheader failed: \(result.errors)") }
    return result.output
}

/// `exiftool -json -a -G1`: every tag exiftool finds, keyed `Group:Tag`.
func exifTags(_ file: String) throws -> [String: String] {
    let result = try run("exiftool", ["-json", "-a", "-G1", "-s", file])
    guard result.status == 0 else { throw FixtureError(message: "exiftool failed: \(result.errors)") }
    guard let array = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]],
        let object = array.first
    else { throw FixtureError(message: "exiftool printed no JSON object") }
    return object.mapValues { "\($0)" }
}

/// The 8-bit colour of `#rrggbb`.
func rgb(_ hex: String) -> [Int] {
    let digits = Array(hex.dropFirst())
    return stride(from: 0, to: 6, by: 2).map { Int(String(digits[$0..<($0 + 2)]), radix: 16) ?? -1 }
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let pattern = Array(needle.utf8)
    guard !pattern.isEmpty, haystack.count >= pattern.count else { return false }
    for start in 0...(haystack.count - pattern.count) where haystack[start] == pattern[0] {
        if Array(haystack[start..<(start + pattern.count)]) == pattern { return true }
    }
    return false
}

/// CRC-32 (ISO 3309, as PNG uses it).
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

func be32(_ value: Int) -> [UInt8] {
    [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

func le32(_ value: Int) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
}

/// A PNG chunk with its CRC.
func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return be32(data.count) + body + be32(Int(crc32(body)))
}

/// A complete, well-formed PNG whose IHDR claims `width` x `height` RGB pixels, with one tiny IDAT: a pixel bomb
/// when the size is large.
func pngClaiming(width: Int, height: Int) -> [UInt8] {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, 0]
    // zlib stream of an empty stored block.
    let idat: [UInt8] = [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]
    return signature + pngChunk("IHDR", ihdr) + pngChunk("IDAT", idat) + pngChunk("IEND", [])
}

/// A JPEG with only SOI, a SOF0 claiming the size, and EOI.
func jpegClaiming(width: Int, height: Int, marker: UInt8 = 0xC0) -> [UInt8] {
    [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00]  // SOI, an empty APP0
        + [
            0xFF, marker, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8),
            UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00,
        ] + [0xFF, 0xD9]
}

/// An extended WebP (VP8X) whose canvas claims the size (each side at most 2^24).
func webpClaiming(width: Int, height: Int) -> [UInt8] {
    let w = width - 1
    let h = height - 1
    let vp8x: [UInt8] =
        Array("VP8X".utf8) + le32(10) + [0, 0, 0, 0]
        + [
            UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16 & 0xFF), UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF),
            UInt8(h >> 16 & 0xFF),
        ]
    return Array("RIFF".utf8) + le32(4 + vp8x.count) + Array("WEBP".utf8) + vp8x
}

/// An ISO BMFF box.
func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    be32(8 + payload.count) + Array(type.utf8) + payload
}

/// A HEIC skeleton: ftyp, then meta with an optional iinf (one infe of version 2 with `itemType`) and iprp/ipco
/// with one ispe per size.
func heifClaiming(_ sizes: [(Int, Int)], brand: String = "heic", itemType: String? = nil) -> [UInt8] {
    let ftyp = box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1".utf8) + Array(brand.utf8))
    let ispes = sizes.flatMap { box("ispe", [0, 0, 0, 0] + be32($0.0) + be32($0.1)) }
    let handler = box("hdlr", [0, 0, 0, 0, 0, 0, 0, 0] + Array("pict".utf8))
    var iinf: [UInt8] = []
    if let itemType {
        let infe = box("infe", [2, 0, 0, 0, 0, 1, 0, 0] + Array(itemType.utf8) + [0])
        iinf = box("iinf", [0, 0, 0, 0, 0, 1] + infe)
    }
    let meta = box("meta", [0, 0, 0, 0] + handler + iinf + box("iprp", box("ipco", ispes)))
    return ftyp + meta
}

/// A deterministic generator (SplitMix64), so a failing random input can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
