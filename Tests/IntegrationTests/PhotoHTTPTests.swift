//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import SwitchboardStore
import Testing

/// Real image files made once per test run with libvips' and exiftool's command-line tools (as the
/// SwitchboardImagesTests fixtures are made), in a temporary folder.
private final class PhotoFixtures: Sendable {
    let dir: URL
    let heic: Bool

    private static let made: Result<PhotoFixtures, PhotoFixtureError> = {
        do { return .success(try PhotoFixtures()) } catch let error as PhotoFixtureError {
            return .failure(error)
        } catch {
            return .failure(PhotoFixtureError(message: "cannot make image fixtures: \(error)"))
        }
    }()

    static func get() throws -> PhotoFixtures { try made.get() }

    private init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-photohttp-\(getpid())")
        heic = try Self.make(in: dir)
    }

    /// Makes the files; returns whether libvips writes HEIC here.
    private static func make(in dir: URL) throws -> Bool {
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        func url(_ name: String) -> URL { dir.appendingPathComponent(name) }
        func vips(_ operation: String, _ arguments: String...) throws { try vipsTool(dir, operation, arguments) }
        func tool(_ name: String, _ arguments: String...) throws { try runTool(name, arguments) }
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // corner: 200 x 100 red with a 40 x 40 blue square in the top-left corner.
        try vips("black", "black3.v", "200", "100", "--bands", "3")
        try vips("linear", "black3.v", "red.v", "1 1 1", "255 0 0", "--uchar")
        try vips("black", "black40.v", "40", "40", "--bands", "3")
        try vips("linear", "black40.v", "blue.v", "1 1 1", "0 0 255", "--uchar")
        try vips("insert", "red.v", "blue.v", "corner.v", "0", "0")
        // Stored 200 x 100, to be shown rotated 90 degrees clockwise (EXIF orientation 6).
        try vips("jpegsave", "corner.v", "oriented.jpg", "--Q", "95")
        try tool("exiftool", "-q", "-overwrite_original", "-n", "-Orientation=6", path("oriented.jpg"))
        // A 640 x 480 noisy photo with where it was taken, the camera and its serial number.
        try vips("gaussnoise", "noise.v", "640", "480", "--mean", "128", "--sigma", "50")
        try vips("bandjoin", "noise.v noise.v noise.v", "noise3.v")
        try vips("cast", "noise3.v", "photo.v", "uchar")
        try vips("jpegsave", "photo.v", "photo.jpg", "--Q", "90")
        try FileManager.default.copyItem(at: url("photo.jpg"), to: url("gps.jpg"))
        try tool(
            "exiftool", "-q", "-overwrite_original", "-GPSLatitude=48.858370", "-GPSLatitudeRef=N",
            "-GPSLongitude=2.294481",
            "-GPSLongitudeRef=E", "-Make=Acme", "-Model=Phone 1", "-SerialNumber=SN1234567", path("gps.jpg"))
        try vips("jpegsave", "photo.v", "progressive.jpg", "--interlace")
        try vips("webpsave", "photo.v", "photo.webp")
        // alpha.png: corner with its left half transparent.
        try vips("black", "alpha0.v", "200", "100")
        try vips("black", "alpha-half.v", "100", "100")
        try vips("linear", "alpha-half.v", "alpha255.v", "1", "255", "--uchar")
        try vips("cast", "alpha0.v", "alpha0u.v", "uchar")
        try vips("insert", "alpha0u.v", "alpha255.v", "alpha.v", "100", "0")
        try vips("bandjoin", "corner.v alpha.v", "rgba.v")
        try vips("pngsave", "rgba.v", "alpha.png")
        try vips("pngsave", "photo.v", "photo.png")
        try vips("gifsave", "corner.v", "corner.gif")
        // A bigger photo for resumable uploads (noise does not compress: a few hundred KB).
        try vips("gaussnoise", "bignoise.v", "1600", "1200", "--mean", "128", "--sigma", "60")
        try vips("bandjoin", "bignoise.v bignoise.v bignoise.v", "big3.v")
        try vips("cast", "big3.v", "big.v", "uchar")
        try vips("jpegsave", "big.v", "big.jpg", "--Q", "95")
        let heic = (try? vips("heifsave", "corner.v", "corner.heic", "--compression", "hevc", "--Q", "90")) != nil
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) where file.hasSuffix(".v") {
            try FileManager.default.removeItem(at: url(file))
        }
        return heic
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    func url(_ name: String) -> URL { dir.appendingPathComponent(name) }
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(name))) }

    /// Writes bytes to a fresh file and returns its path.
    func write(_ bytes: [UInt8], suffix: String) throws -> String {
        let file = dir.appendingPathComponent("\(UUID().uuidString)\(suffix)")
        try Data(bytes).write(to: file)
        return file.path
    }

    private static func vipsTool(_ dir: URL, _ operation: String, _ arguments: [String]) throws {
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let extensions: Set<String> = ["v", "jpg", "png", "webp", "heic", "gif"]
        func isFile(_ word: Substring) -> Bool {
            guard let dot = word.lastIndex(of: ".") else { return false }
            return extensions.contains(String(word[word.index(after: dot)...]))
        }
        let resolved = arguments.map { argument in
            let words = argument.split(separator: " ")
            guard !words.isEmpty, words.allSatisfy(isFile) else { return argument }
            return words.map { path(String($0)) }.joined(separator: " ")
        }
        try runTool("vips", [operation] + resolved)
    }

    private static func runTool(_ name: String, _ arguments: [String]) throws {
        let result = try runProcess("/usr/bin/env", [name] + arguments)
        if result.status != 0 {
            throw PhotoFixtureError(message: "\(name) \(arguments.joined(separator: " ")) failed: \(result.output)")
        }
    }
}

private struct PhotoFixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `vips getpoint`: the band values at (x, y).
private func pixel(_ file: String, _ x: Int, _ y: Int) throws -> [Double] {
    let result = try runProcess("/usr/bin/env", ["vips", "getpoint", file, "\(x)", "\(y)"])
    return result.output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
}

/// `vipsheader -f field`.
private func vipsField(_ file: String, _ field: String) throws -> String {
    try runProcess("/usr/bin/env", ["vipsheader", "-f", field, file]).output.trimmingCharacters(
        in: .whitespacesAndNewlines)
}

/// A PNG whose IHDR claims `width` x `height` RGB pixels with one tiny IDAT: a pixel bomb.
private func pngBomb(width: Int, height: Int) -> [UInt8] {
    func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let idat: [UInt8] = [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]
    return signature + chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0]) + chunk("IDAT", idat)
        + chunk("IEND", [])
}

private func errorCodeOf(_ response: (status: Int, head: String, body: [UInt8])) -> String? {
    (json(response.body)["error"] as? [String: Any])?["code"] as? String
}

/// A tus request (`Tus-Resumable: 1.0.0`) on a fresh connection; any method, any body.
private func tus(
    _ port: Int, _ method: String, _ path: String, token: String?, headers: [String: String] = [:], body: [UInt8] = []
) throws -> (status: Int, head: String, body: [UInt8]) {
    let socket = try TestSocket(port: port, timeout: 30)
    var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTus-Resumable: 1.0.0\r\n"
    if let token { request += "Authorization: Bearer \(token)\r\n" }
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    if method == "PATCH" || method == "POST" { request += "Content-Length: \(body.count)\r\n" }
    request += "\r\n"
    try socket.send(Array(request.utf8) + body)
    if method == "HEAD" {
        let head = try socket.readHead()
        return (Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, head, [])
    }
    return try socket.readResponse()
}

/// A value of `/metrics` (the first sample whose line starts with `prefix`), or 0.
private func metric(_ port: Int, _ prefix: String) throws -> Double {
    let text = String(decoding: try http(port, "GET", "/metrics").body, as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
        return Double(line.split(separator: " ").last ?? "") ?? 0
    }
    return 0
}

@Suite("Photos over HTTP: upload, serving, resumable uploads, authorization", .serialized)
struct PhotoHTTPTests {
    @Test func uploadProcessesSafelyAndServesWithCachingHeaders() throws {
        let fixtures = try PhotoFixtures.get()
        let (server, port, database) = try startProtocolServer { $0.photos.maxBytes = 2 * 1024 * 1024 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let oriented = try fixtures.bytes("oriented.jpg")

        // Authentication and the size limit come before the body is read.
        #expect(try http(port, "POST", "/photos", body: oriented).status == 401)
        #expect(try http(port, "POST", "/photos", token: "nope", body: oriented).status == 401)
        let tooBig = try http(
            port, "POST", "/photos", token: ann.token, body: Array(repeating: 0xFF, count: 3 * 1024 * 1024))
        #expect(tooBig.status == 413)
        #expect(errorCodeOf(tooBig) == "image_too_large")
        #expect(try http(port, "PUT", "/photos", token: ann.token).status == 405)

        // A rotated JPEG comes out upright: 100 x 200, the blue corner now top right.
        let up = try http(
            port, "POST", "/photos", token: ann.token, headers: ["Content-Type": "text/plain"], body: oriented)
        #expect(up.status == 201)
        let photo = json(up.body)
        let id = try #require(photo["photo_id"] as? Int)
        #expect(photo["width"] as? Int == 100)
        #expect(photo["height"] as? Int == 200)
        #expect(photo["has_alpha"] as? Bool == false)
        #expect(photo["duplicate"] as? Bool == false)
        #expect((photo["color"] as? String)?.count == 7)
        #expect(header(up.head, "Location") == "/photos/\(id)")
        let display = try http(port, "GET", "/photos/\(id)?format=jpeg", token: ann.token)
        #expect(display.status == 200)
        #expect(header(display.head, "Content-Type") == "image/jpeg")
        let file = try fixtures.write(display.body, suffix: ".jpg")
        #expect(try vipsField(file, "width") == "100")
        #expect(try vipsField(file, "height") == "200")
        let topRight = try pixel(file, 90, 10)
        #expect(topRight.count == 3 && topRight[2] > 180 && topRight[0] < 80, "top right is \(topRight)")
        let bottomLeft = try pixel(file, 10, 190)
        #expect(bottomLeft.count == 3 && bottomLeft[0] > 180 && bottomLeft[2] < 80, "bottom left is \(bottomLeft)")

        // Serving: format by Accept (Vary) or by the query, ETag, 304, ranges, long private caching, nosniff.
        let webp = try http(
            port, "GET", "/photos/\(id)", token: ann.token, headers: ["Accept": "image/avif,image/webp,*/*"])
        #expect(header(webp.head, "Content-Type") == "image/webp")
        #expect(Array(webp.body[8..<12]) == Array("WEBP".utf8))
        #expect(header(webp.head, "Vary") == "Accept")
        let plain = try http(port, "GET", "/photos/\(id)", token: ann.token)
        #expect(header(plain.head, "Content-Type") == "image/jpeg")
        #expect(plain.body == display.body)
        #expect(header(display.head, "Vary") == nil)
        #expect(header(display.head, "Cache-Control") == "private, max-age=31536000, immutable")
        #expect(header(display.head, "X-Content-Type-Options") == "nosniff")
        #expect(header(display.head, "Accept-Ranges") == "bytes")
        let etag = try #require(header(display.head, "ETag"))
        #expect(etag.count == 66)
        let notModified = try http(
            port, "GET", "/photos/\(id)?format=jpeg", token: ann.token, headers: ["If-None-Match": etag])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        let part = try http(
            port, "GET", "/photos/\(id)?format=jpeg", token: ann.token, headers: ["Range": "bytes=10-109"])
        #expect(part.status == 206)
        #expect(part.body == Array(display.body[10...109]))
        #expect(header(part.head, "Content-Range") == "bytes 10-109/\(display.body.count)")
        let beyond = try http(
            port, "GET", "/photos/\(id)?format=jpeg", token: ann.token,
            headers: ["Range": "bytes=\(display.body.count)-"])
        #expect(beyond.status == 416)
        #expect(header(beyond.head, "Content-Range") == "bytes */\(display.body.count)")
        let headOnly = try http(port, "HEAD", "/photos/\(id)?format=jpeg", token: ann.token)
        #expect(headOnly.status == 200)
        #expect(header(headOnly.head, "Content-Length") == String(display.body.count))
        // Never enlarged: this 100 x 200 photo's thumbnail is its display rendition.
        let thumb = try http(port, "GET", "/photos/\(id)?size=thumb&format=jpeg", token: ann.token)
        #expect(thumb.status == 200)
        #expect(header(thumb.head, "ETag") == etag)
        #expect(try http(port, "GET", "/photos/\(id)?size=huge", token: ann.token).status == 400)
        #expect(try http(port, "GET", "/photos/\(id)?format=gif", token: ann.token).status == 400)
        #expect(try http(port, "GET", "/photos/\(id)").status == 401)
        #expect(try http(port, "GET", "/photos/abc", token: ann.token).status == 404)
        #expect(try http(port, "GET", "/photos/999999999", token: ann.token).status == 404)
        // The second read of a rendition came from this node's cache.
        #expect(try metric(port, "switchboard_photo_cache_total{result=\"hit\"}") >= 1)
        #expect(try metric(port, "switchboard_photo_cache_bytes") > 0)

        // GPS, the camera and its serial are gone from both sizes in both formats; the same file again is a duplicate.
        let gps = try fixtures.bytes("gps.jpg")
        let gpsUp = try http(port, "POST", "/photos", token: ann.token, body: gps)
        #expect(gpsUp.status == 201)
        let gpsId = try #require(json(gpsUp.body)["photo_id"] as? Int)
        for size in ["display", "thumb"] {
            for format in ["webp", "jpeg"] {
                let r = try http(port, "GET", "/photos/\(gpsId)?size=\(size)&format=\(format)", token: ann.token)
                #expect(r.status == 200)
                let out = try fixtures.write(r.body, suffix: ".\(format == "jpeg" ? "jpg" : "webp")")
                let tags = try runProcess("/usr/bin/env", ["exiftool", "-a", "-G1", "-s", out]).output
                #expect(!tags.contains("GPS"), "\(size) \(format) still has GPS: \(tags)")
                #expect(
                    !tags.contains("SN1234567") && !tags.contains("Acme"), "\(size) \(format) still names the camera")
            }
        }
        let gpsThumb = try fixtures.write(
            try http(port, "GET", "/photos/\(gpsId)?size=thumb&format=jpeg", token: ann.token).body, suffix: ".jpg")
        #expect(try vipsField(gpsThumb, "width") == "320")
        #expect(try vipsField(gpsThumb, "height") == "240")
        let gpsDisplay = try fixtures.write(
            try http(port, "GET", "/photos/\(gpsId)?format=jpeg", token: ann.token).body, suffix: ".jpg")
        #expect(try vipsField(gpsDisplay, "width") == "640")
        let again = try http(port, "POST", "/photos", token: ann.token, body: gps)
        #expect(again.status == 201)
        #expect(json(again.body)["photo_id"] as? Int == gpsId)
        #expect(json(again.body)["duplicate"] as? Bool == true)
        // Two files were processed (the duplicate was not): the processing histogram counted each once.
        #expect(try metric(port, "switchboard_photo_processing_seconds_count") == 2)
        #expect(try metric(port, "switchboard_photo_processing_seconds_sum") > 0)
        // Opting in keeps the metadata (a different photo: the dedup key is the input, and this is new for cat).
        let cat = try makeUser(port, "cat")
        let kept = try http(port, "POST", "/photos?keep_metadata=1", token: cat.token, body: gps)
        let keptId = try #require(json(kept.body)["photo_id"] as? Int)
        let keptFile = try fixtures.write(
            try http(port, "GET", "/photos/\(keptId)?format=jpeg", token: cat.token).body, suffix: ".jpg")
        #expect(try runProcess("/usr/bin/env", ["exiftool", "-a", "-G1", "-s", keptFile]).output.contains("GPS"))

        // PNG with alpha, WebP, progressive JPEG, and HEIC where libvips reads it.
        let alpha = try http(port, "POST", "/photos", token: ann.token, body: try fixtures.bytes("alpha.png"))
        #expect(alpha.status == 201)
        #expect(json(alpha.body)["has_alpha"] as? Bool == true)
        let alphaId = try #require(json(alpha.body)["photo_id"] as? Int)
        let alphaWebp = try fixtures.write(
            try http(port, "GET", "/photos/\(alphaId)?format=webp", token: ann.token).body, suffix: ".webp")
        #expect(try vipsField(alphaWebp, "bands") == "4")
        #expect(try pixel(alphaWebp, 10, 50).last ?? 255 < 10)
        for name in ["photo.webp", "progressive.jpg", "photo.png"] {
            let r = try http(port, "POST", "/photos", token: ann.token, body: try fixtures.bytes(name))
            #expect(r.status == 201, "\(name): \(r.status)")
            #expect(json(r.body)["width"] as? Int == 640, "\(name)")
            #expect(json(r.body)["height"] as? Int == 480, "\(name)")
        }
        if fixtures.heic {
            let heic = try http(port, "POST", "/photos", token: ann.token, body: try fixtures.bytes("corner.heic"))
            #expect(heic.status == 201)
            #expect(json(heic.body)["width"] as? Int == 200)
        }

        // Refusals, each typed, and nothing stored for them (Ann's photos counted: the database is shared with the
        // suites running alongside, which upload photos of their own).
        let photosBefore = try sqlCount(database, "SELECT count(*) FROM photos WHERE owner_id = \(ann.id)")
        let bomb = try http(port, "POST", "/photos", token: ann.token, body: pngBomb(width: 100_000, height: 100_000))
        #expect(bomb.status == 422)
        #expect(errorCodeOf(bomb) == "image_too_many_pixels")
        let jpeg = try fixtures.bytes("photo.jpg")
        let truncated = try http(port, "POST", "/photos", token: ann.token, body: Array(jpeg.prefix(jpeg.count / 2)))
        #expect(truncated.status == 422)
        #expect(errorCodeOf(truncated) == "image_corrupt")
        var png = try fixtures.bytes("photo.png")
        for i in (png.count / 2)..<(png.count / 2 + 64) { png[i] ^= 0x5A }
        let corrupt = try http(port, "POST", "/photos", token: ann.token, body: png)
        #expect(corrupt.status == 422)
        #expect(errorCodeOf(corrupt) == "image_corrupt")
        let gif = try http(port, "POST", "/photos", token: ann.token, body: try fixtures.bytes("corner.gif"))
        #expect(gif.status == 415)
        #expect(errorCodeOf(gif) == "unsupported_media_type")
        let empty = try http(port, "POST", "/photos", token: ann.token, body: [])
        #expect(empty.status == 400)
        #expect(errorCodeOf(empty) == "image_empty")
        #expect(try sqlCount(database, "SELECT count(*) FROM photos WHERE owner_id = \(ann.id)") == photosBefore)
    }

    @Test func everyPhotoURLIsAuthorizedLikeWhatReferencesIt() throws {
        let fixtures = try PhotoFixtures.get()
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")  // friend
        let fay = try makeUser(port, "fay")  // follower
        let sam = try makeUser(port, "sam")  // stranger
        let bad = try makeUser(port, "bad")  // friend, then blocked
        try befriend(ann, bob)
        try befriend(ann, bad)
        // Ann has a public handle but protects her posts: only active followers read them.
        try runSQL(database, "UPDATE users SET handle = 'ann_\(ann.id)', protected = true WHERE id = \(ann.id)")
        try runSQL(
            database, "INSERT INTO follows (follower_id, followee_id, state) VALUES (\(fay.id), \(ann.id), 'active')")
        try runSQL(database, "INSERT INTO blocks (blocker_id, blocked_id) VALUES (\(ann.id), \(bad.id))")

        var ids: [Int] = []
        for seed in 1...4 {
            let out = fixtures.path("m\(seed).png")
            _ = try runProcess("/usr/bin/env", ["vips", "black", out, "\(10 + seed)", "10"])
            let r = try http(port, "POST", "/photos", token: ann.token, body: try fixtures.bytes("m\(seed).png"))
            #expect(r.status == 201)
            ids.append(try #require(json(r.body)["photo_id"] as? Int))
        }
        let (inMoment, avatar, inPost, unreferenced) = (ids[0], ids[1], ids[2], ids[3])
        let momentId = try sqlCount(
            database, "INSERT INTO moments (owner_id, caption) VALUES (\(ann.id), 'hi') RETURNING id")
        try runSQL(
            database, "INSERT INTO moment_photos (moment_id, position, photo_id) VALUES (\(momentId), 0, \(inMoment))")
        try runSQL(database, "UPDATE users SET avatar_photo_id = \(avatar) WHERE id = \(ann.id)")
        // A post as the posts ops write it (its seq from the post clock: other suites share this database).
        let postId = try sqlCount(
            database,
            "WITH c AS (UPDATE post_clock SET seq = seq + 1 RETURNING seq)"
                + " INSERT INTO posts (seq, author_id, text) SELECT seq, \(ann.id), 'look' FROM c RETURNING id"
        )
        try runSQL(database, "INSERT INTO post_photos (post_id, position, photo_id) VALUES (\(postId), 0, \(inPost))")

        func status(_ user: TestUser, _ photo: Int) throws -> Int {
            try http(port, "GET", "/photos/\(photo)?size=thumb", token: user.token).status
        }
        let viewers = [("owner", ann), ("friend", bob), ("follower", fay), ("stranger", sam), ("blocked", bad)]
        let expected: [(String, Int, [Int])] = [
            ("moment", inMoment, [200, 200, 404, 404, 404]),
            ("avatar", avatar, [200, 200, 200, 200, 404]),
            ("post", inPost, [200, 404, 200, 404, 404]),
            ("unreferenced", unreferenced, [200, 404, 404, 404, 404]),
        ]
        for (what, photo, statuses) in expected {
            for ((who, user), want) in zip(viewers, statuses) {
                #expect(try status(user, photo) == want, "\(what) photo as \(who)")
            }
        }
        // A 404 looks exactly like a missing photo's.
        let refused = try http(port, "GET", "/photos/\(inMoment)", token: sam.token)
        let missing = try http(port, "GET", "/photos/999999999", token: sam.token)
        #expect(refused.body == missing.body)

        // After deletion: of the moment, of the post (soft), of the photo (its avatar cleared).
        try runSQL(database, "DELETE FROM moments WHERE id = \(momentId)")
        #expect(try status(bob, inMoment) == 404)
        #expect(try status(ann, inMoment) == 200)
        try runSQL(
            database,
            "WITH c AS (UPDATE post_clock SET seq = seq + 1 RETURNING seq)"
                + " UPDATE posts SET deleted_at = now(), text = '', deleted_seq = c.seq FROM c WHERE id = \(postId)"
        )
        #expect(try status(fay, inPost) == 404)
        #expect(try status(ann, inPost) == 200)
        #expect(try status(sam, avatar) == 200)  // read once: the rendition is in this node's cache now
        try runSQL(database, "DELETE FROM photos WHERE id = \(avatar)")
        #expect(try status(sam, avatar) == 404)
        #expect(try status(ann, avatar) == 404)
        #expect(
            try sqlCount(database, "SELECT count(*) FROM users WHERE avatar_photo_id IS NOT NULL AND id = \(ann.id)")
                == 0)
    }

    @Test func tusUploadsResumeAfterADroppedConnectionForPhotosAndVoice() throws {
        let fixtures = try PhotoFixtures.get()
        let (server, port, database) = try startProtocolServer { $0.photos.maxPendingUploads = 3 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let zed = try makeUser(port, "zed")

        let options = try http(port, "OPTIONS", "/uploads")
        #expect(options.status == 204)
        #expect(header(options.head, "Tus-Resumable") == "1.0.0")
        #expect(header(options.head, "Tus-Version") == "1.0.0")
        #expect(header(options.head, "Tus-Extension") == "creation,termination")
        #expect(header(options.head, "Tus-Max-Size") == String(30 * 1024 * 1024))
        // Without Tus-Resumable: 412. Without a token: 401. Too long: 413.
        let noVersion = try http(port, "POST", "/uploads", token: ann.token, headers: ["Upload-Length": "10"])
        #expect(noVersion.status == 412)
        #expect(try tus(port, "POST", "/uploads", token: nil, headers: ["Upload-Length": "10"]).status == 401)
        #expect(
            try tus(port, "POST", "/uploads", token: ann.token, headers: ["Upload-Length": String(31 * 1024 * 1024)])
                .status == 413)

        var uploadIds: [String] = []
        for (kind, bytes) in [("photo", try fixtures.bytes("big.jpg")), ("voice", toneWAV(seconds: 2))] {
            let metadata =
                "kind \(Data(kind.utf8).base64EncodedString()),filename \(Data("x.bin".utf8).base64EncodedString())"
            let created = try tus(
                port, "POST", "/uploads", token: ann.token,
                headers: ["Upload-Length": String(bytes.count), "Upload-Metadata": metadata])
            #expect(created.status == 201)
            #expect(header(created.head, "Tus-Resumable") == "1.0.0")
            let location = try #require(header(created.head, "Location"))
            uploadIds.append(String(location.dropFirst("/uploads/".count)))
            #expect(location.hasPrefix("/uploads/") && location.count == "/uploads/".count + 43)
            let patchHeaders = ["Content-Type": "application/offset+octet-stream"]

            // The first quarter.
            let quarter = bytes.count / 4
            let first = try tus(
                port, "PATCH", location, token: ann.token,
                headers: patchHeaders.merging(["Upload-Offset": "0"]) { a, _ in a },
                body: Array(bytes[..<quarter]))
            #expect(first.status == 204)
            #expect(header(first.head, "Upload-Offset") == String(quarter))
            // Another user sees nothing; a wrong offset is 409 with the right one.
            #expect(try tus(port, "HEAD", location, token: zed.token).status == 404)
            #expect(
                try tus(
                    port, "PATCH", location, token: zed.token,
                    headers: patchHeaders.merging(["Upload-Offset": String(quarter)]) { a, _ in a },
                    body: [1, 2, 3]
                ).status == 404)
            let conflict = try tus(
                port, "PATCH", location, token: ann.token,
                headers: patchHeaders.merging(["Upload-Offset": "0"]) { a, _ in a }, body: [1])
            #expect(conflict.status == 409)
            #expect(header(conflict.head, "Upload-Offset") == String(quarter))
            // Completing before the end: nothing to process.
            #expect(
                try http(
                    port, "POST", "/\(kind == "photo" ? "photos" : "voice")?upload=\(location.dropFirst(9))",
                    token: ann.token
                ).status == 404)

            // A PATCH for the rest whose connection drops after another quarter: those bytes are stored.
            let socket = try TestSocket(port: port, timeout: 30)
            let head =
                "PATCH \(location) HTTP/1.1\r\nHost: 127.0.0.1\r\nTus-Resumable: 1.0.0\r\n"
                + "Authorization: Bearer \(ann.token)\r\nContent-Type: application/offset+octet-stream\r\n"
                + "Upload-Offset: \(quarter)\r\nContent-Length: \(bytes.count - quarter)\r\n\r\n"
            try socket.send(Array(head.utf8))
            try socket.send(Array(bytes[quarter..<(2 * quarter)]))
            // Drop: TCP delivers the bytes before the FIN, so the server reads them, then sees the end.
            socket.shutdownBoth()
            var offset = ""
            #expect(
                waitUntil(timeout: 10) {
                    offset =
                        (try? tus(port, "HEAD", location, token: ann.token)).flatMap {
                            header($0.head, "Upload-Offset")
                        } ?? ""
                    return offset == String(2 * quarter)
                }, "HEAD reports \(offset) after the drop")
            let state = try tus(port, "HEAD", location, token: ann.token)
            #expect(state.status == 200)
            #expect(header(state.head, "Upload-Length") == String(bytes.count))
            #expect(header(state.head, "Cache-Control") == "no-store")
            #expect(header(state.head, "Upload-Metadata") == metadata)

            // Resume there and finish.
            let rest = try tus(
                port, "PATCH", location, token: ann.token,
                headers: patchHeaders.merging(["Upload-Offset": String(2 * quarter)]) { a, _ in a },
                body: Array(bytes[(2 * quarter)...]))
            #expect(rest.status == 204)
            #expect(header(rest.head, "Upload-Offset") == String(bytes.count))
            let uploadId = String(location.dropFirst("/uploads/".count))
            // The wrong kind's endpoint does not take it; another user's neither.
            let other = kind == "photo" ? "voice" : "photos"
            #expect(try http(port, "POST", "/\(other)?upload=\(uploadId)", token: ann.token).status == 404)
            let endpoint = kind == "photo" ? "photos" : "voice"
            #expect(try http(port, "POST", "/\(endpoint)?upload=\(uploadId)", token: zed.token).status == 404)
            let done = try http(port, "POST", "/\(endpoint)?upload=\(uploadId)", token: ann.token)
            #expect(done.status == 201, "\(kind): \(String(decoding: done.body, as: UTF8.self))")
            if kind == "photo" {
                #expect(json(done.body)["width"] as? Int == 1600)
                // The same answer as a direct upload of the same file: the same photo.
                let direct = try http(port, "POST", "/photos", token: ann.token, body: bytes)
                #expect(json(direct.body)["photo_id"] as? Int == json(done.body)["photo_id"] as? Int)
            } else {
                #expect(json(done.body)["voice_id"] as? Int != nil)
            }
            // The upload is gone once stored.
            #expect(try tus(port, "HEAD", location, token: ann.token).status == 404)
        }
        // This test's chunks only: other suites upload through tus against the same database at the same time.
        #expect(
            try sqlCount(
                database,
                "SELECT count(*) FROM upload_chunks WHERE upload_id IN ('\(uploadIds.joined(separator: "','"))')") == 0)

        // Termination, the per-user limit, and the expiry sweep.
        var created: [String] = []
        for _ in 0..<3 {
            let r = try tus(port, "POST", "/uploads", token: ann.token, headers: ["Upload-Length": "100"])
            #expect(r.status == 201)
            created.append(try #require(header(r.head, "Location")))
        }
        #expect(try tus(port, "POST", "/uploads", token: ann.token, headers: ["Upload-Length": "100"]).status == 429)
        #expect(try tus(port, "DELETE", created[0], token: zed.token).status == 404)
        #expect(try tus(port, "DELETE", created[0], token: ann.token).status == 204)
        #expect(try tus(port, "HEAD", created[0], token: ann.token).status == 404)
    }

    @Test func anUploadMovesBetweenNodesAndEveryNodeServesThePhoto() throws {
        let fixtures = try PhotoFixtures.get()
        let cluster = try startCluster(2)
        defer { stop(cluster) }
        let (a, b) = (cluster[0].port, cluster[1].port)
        let ann = try makeUser(a, "ann")
        let bob = try makeUser(b, "bob")
        let bytes = try fixtures.bytes("progressive.jpg")
        let half = bytes.count / 2
        let patch = ["Content-Type": "application/offset+octet-stream"]
        // Created and half sent through node A; resumed through node B; stored through node A.
        let created = try tus(a, "POST", "/uploads", token: ann.token, headers: ["Upload-Length": String(bytes.count)])
        let location = try #require(header(created.head, "Location"))
        #expect(
            try tus(
                a, "PATCH", location, token: ann.token, headers: patch.merging(["Upload-Offset": "0"]) { x, _ in x },
                body: Array(bytes[..<half])
            ).status == 204)
        #expect(header(try tus(b, "HEAD", location, token: ann.token).head, "Upload-Offset") == String(half))
        #expect(
            try tus(
                b, "PATCH", location, token: ann.token,
                headers: patch.merging(["Upload-Offset": String(half)]) { x, _ in x }, body: Array(bytes[half...])
            ).status == 204)
        let done = try http(a, "POST", "/photos?upload=\(location.dropFirst("/uploads/".count))", token: ann.token)
        #expect(done.status == 201)
        let id = try #require(json(done.body)["photo_id"] as? Int)
        // Both nodes serve the same bytes to the owner, and neither to a stranger.
        let fromA = try http(a, "GET", "/photos/\(id)?format=webp", token: ann.token)
        let fromB = try http(b, "GET", "/photos/\(id)?format=webp", token: ann.token)
        #expect(fromA.status == 200 && fromB.status == 200)
        #expect(fromA.body == fromB.body)
        #expect(header(fromA.head, "ETag") == header(fromB.head, "ETag"))
        #expect(try http(b, "GET", "/photos/\(id)", token: bob.token).status == 404)
        // Moments are friends': once Ann's moment holds it, Bob reads it on either node.
        try befriend(ann, bob)
        try runSQL(
            cluster[0].database,
            "WITH m AS (INSERT INTO moments (owner_id) VALUES (\(ann.id)) RETURNING id)"
                + " INSERT INTO moment_photos (moment_id, position, photo_id) SELECT id, 0, \(id) FROM m"
        )
        #expect(try http(a, "GET", "/photos/\(id)", token: bob.token).status == 200)
        #expect(try http(b, "GET", "/photos/\(id)", token: bob.token).status == 200)
    }

    @Test func aFullWorkerPoolAnswers503WithRetryAfterAndStoresNothingForIt() throws {
        let fixtures = try PhotoFixtures.get()
        // One worker, nobody waiting: while one photo is processed, every other upload is refused at once.
        let (server, port, database) = try startProtocolServer {
            $0.photos.workers = 1
            $0.photos.maxWaiting = 0
            $0.voice.maxUploadsPerUser = 16
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bytes = try fixtures.bytes("big.jpg")
        let token = ann.token
        let statuses = Unchecked(NSMutableArray())
        let retryAfter = Unchecked(NSMutableArray())
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let r = try? http(port, "POST", "/photos", token: token, body: bytes)
            lock.lock()
            statuses.value.add(NSNumber(value: r?.status ?? 0))
            if r?.status == 503 { retryAfter.value.add(header(r?.head ?? "", "Retry-After") ?? "") }
            lock.unlock()
        }
        let all = statuses.value.compactMap { ($0 as? NSNumber)?.intValue }
        #expect(all.count == 6)
        #expect(all.allSatisfy { $0 == 201 || $0 == 503 }, "\(all)")
        #expect(all.contains(201), "\(all)")
        #expect(all.contains(503), "\(all)")
        #expect(retryAfter.value.allSatisfy { ($0 as? String) == "2" })
        // The refused ones stored nothing: one photo, and the same file later is that photo.
        #expect(try sqlCount(database, "SELECT count(*) FROM photos WHERE owner_id = \(ann.id)") == 1)
        let again = try http(port, "POST", "/photos", token: ann.token, body: bytes)
        #expect(again.status == 201)
        #expect(json(again.body)["duplicate"] as? Bool == true)
    }

    @Test func idleUploadsExpire() throws {
        let (server, port, database) = try startProtocolServer { $0.photos.uploadExpirySeconds = 2 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let r = try tus(port, "POST", "/uploads", token: ann.token, headers: ["Upload-Length": "100"])
        let location = try #require(header(r.head, "Location"))
        let patched = try tus(
            port, "PATCH", location, token: ann.token,
            headers: ["Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"],
            body: Array(repeating: 7, count: 10))
        // Stored with its first chunk (told by the PATCH's answer, not by a later request that a sweep could beat).
        #expect(patched.status == 204)
        #expect(header(patched.head, "Upload-Offset") == "10")
        // The sweep runs every half second here (a quarter of the expiry, at least 0.5 s) and removes it with its
        // chunks.
        #expect(waitUntil { (try? tus(port, "HEAD", location, token: ann.token).status) == 404 })
        #expect(
            try sqlCount(
                database,
                "SELECT count(*) FROM upload_chunks WHERE upload_id = '\(location.dropFirst("/uploads/".count))'") == 0)
        // Counted once the sweep's DELETE has returned (a moment after the row is gone).
        #expect(waitUntil(timeout: 10) { ((try? metric(port, "switchboard_uploads_expired_total")) ?? 0) >= 1 })
    }
}

/// One integer from the test database (the first column of the first row; a count or a RETURNING id).
private func sqlCount(_ database: DatabaseRuntime, _ sql: String) throws -> Int {
    let done = DispatchSemaphore(value: 0)
    let box = Unchecked(NSMutableArray())
    database.pool.withConnection(
        on: DispatchQueue(label: "test.photos.sql"), { db in try db.query(sql).decodeFirst(Int64.self) ?? -1 },
        completion: { r in
            if case .success(let n) = r { box.value.add(NSNumber(value: n)) }
            done.signal()
        })
    done.wait()
    guard let n = (box.value.firstObject as? NSNumber)?.intValue else {
        throw PhotoFixtureError(message: "query failed: \(sql)")
    }
    return n
}
