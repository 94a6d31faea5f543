//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL
import CZlib

/// Pure helpers for serving static files: the request path, `Accept-Encoding`, `If-None-Match`, content types,
/// gzip and the entity tag. None of them touches a file.
public enum HTTPStatic {
    /// Longest request path (decoded) that can name a file.
    public static let maxPathBytes = 1024

    /// The file path a request path names (`/` and `/dir/` name their `index.html`), or nil when the path is not
    /// one a file can have: not starting with `/`, a bad or encoded-slash/backslash/control percent escape,
    /// a raw backslash or control byte, an empty, `.` or `..` segment, a segment starting with `.` (dotfiles),
    /// invalid UTF-8, or longer than `maxPathBytes`. The result is looked up as is in a table of loaded files; it
    /// never reaches the file system.
    public static func filePath(forRequestPath path: String) -> String? {
        let raw = Array(path.utf8)
        guard raw.first == UInt8(ascii: "/"), raw.count <= maxPathBytes * 3 else { return nil }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            var byte = raw[i]
            if byte == UInt8(ascii: "%") {
                guard i + 2 < raw.count, let high = hexValue(raw[i + 1]), let low = hexValue(raw[i + 2]) else {
                    return nil
                }
                byte = high << 4 | low
                // An encoded slash would join segments the client meant as one.
                guard byte != UInt8(ascii: "/") else { return nil }
                i += 3
            } else {
                i += 1
            }
            guard byte >= 0x20, byte != 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            decoded.append(byte)
        }
        guard decoded.count <= maxPathBytes, let text = String(validating: decoded, as: UTF8.self) else { return nil }
        // Segments by bytes, not by characters: a `/` followed by a combining mark is one Character, which a
        // character-wise split would not see as a separator (the fuzzer found "/\u{06D6}" coming out as "/").
        var segments = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        var directory = false
        if segments.last?.isEmpty == true {
            // `/` or `/dir/`: the folder's index.html.
            directory = true
            segments = segments.dropLast()
        }
        for segment in segments {
            guard let first = segment.first, first != UInt8(ascii: ".") else { return nil }
        }
        guard directory else { return text }
        let index = text == "/" ? "/index.html" : text + "index.html"
        // A folder's path near the limit must not come out longer than the limit (the fuzzer found one: the answer
        // was then refused when read again).
        return index.utf8.count <= maxPathBytes ? index : nil
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Whether an `Accept-Encoding` value accepts gzip (RFC 9110 12.5.3): `gzip` or `x-gzip` with a q-value above
    /// zero, or else `*` above zero. No header (nil) means no compression here (identity is always fine).
    public static func acceptsGzip(_ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        var gzip: Double? = nil
        var star: Double? = nil
        for item in acceptEncoding.split(separator: ",").prefix(64) {
            let parts = item.split(separator: ";")
            guard let name = parts.first.map({ trimOWS($0).lowercased() }), !name.isEmpty else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, trimOWS(pair[0]).lowercased() == "q" else { continue }
                q = Double(trimOWS(pair[1])).map { min(1, max(0, $0)) } ?? 0
            }
            switch name {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, q)
            case "*": star = q
            default: break
            }
        }
        return (gzip ?? star ?? 0) > 0
    }

    /// Whether an `If-None-Match` value matches `etag` (weak comparison, RFC 9110 13.1.2): `*`, or a listed entity
    /// tag whose opaque part equals `etag`'s. A malformed list matches only up to where it breaks.
    public static func ifNoneMatch(_ header: String?, matches etag: String) -> Bool {
        guard let header else { return false }
        if trimOWS(Substring(header)) == "*" { return true }
        let wanted = Array(etag.utf8.drop(while: { $0 != UInt8(ascii: "\"") }))
        let bytes = Array(header.utf8)
        var i = 0
        var tags = 0
        while i < bytes.count && tags < 64 {
            while i < bytes.count
                && (bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") || bytes[i] == UInt8(ascii: ","))
            {
                i += 1
            }
            guard i < bytes.count else { break }
            if bytes[i] == UInt8(ascii: "W"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") { i += 2 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return false }
            var end = i + 1
            while end < bytes.count && bytes[end] != UInt8(ascii: "\"") { end += 1 }
            guard end < bytes.count else { return false }
            if bytes[i...end].elementsEqual(wanted) { return true }
            i = end + 1
            tags += 1
        }
        return false
    }

    /// The content type for a file name's extension and whether such files are worth compressing. Unknown
    /// extensions are `application/octet-stream` (served with `nosniff`).
    public static func contentType(forPath path: String) -> (type: String, compressible: Bool) {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            return ("application/octet-stream", false)
        }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": return ("text/html; charset=utf-8", true)
        case "js", "mjs": return ("text/javascript; charset=utf-8", true)
        case "css": return ("text/css; charset=utf-8", true)
        case "json", "map": return ("application/json", true)
        case "webmanifest": return ("application/manifest+json", true)
        case "txt": return ("text/plain; charset=utf-8", true)
        case "svg": return ("image/svg+xml", true)
        case "ico": return ("image/x-icon", true)
        case "png": return ("image/png", false)
        case "jpg", "jpeg": return ("image/jpeg", false)
        case "webp": return ("image/webp", false)
        case "gif": return ("image/gif", false)
        case "woff2": return ("font/woff2", false)
        case "woff": return ("font/woff", false)
        case "ogg", "opus": return ("audio/ogg", false)
        default: return ("application/octet-stream", false)
        }
    }

    /// A strong entity tag for content: the first 128 bits of its SHA-256 in hex, quoted, with `suffix` (e.g.
    /// `-gz` for the gzip form, so the two forms never share a tag).
    public static func entityTag(for bytes: [UInt8], suffix: String = "") -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { b in
            digest.withUnsafeMutableBufferPointer { d in _ = SHA256(b.baseAddress, b.count, d.baseAddress) }
        }
        let hex = digest.prefix(16).map { b -> String in
            let s = String(b, radix: 16)
            return b < 16 ? "0" + s : s
        }.joined()
        return "\"\(hex)\(suffix)\""
    }

    /// The gzip (RFC 1952) form of `bytes` at `level`, or nil if zlib fails.
    public static func gzip(_ bytes: [UInt8], level: Int32 = 9) -> [UInt8]? {
        var stream = z_stream()
        // 15 + 16: a gzip header and trailer around a 32 KiB-window deflate stream.
        guard CZlib_deflateInit2(&stream, level, 15 + 16, 8) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        let rc = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// Inflates a gzip stream (tests and tools), or nil when it is not one or inflates past `maxBytes`.
    public static func gunzip(_ bytes: [UInt8], maxBytes: Int = 64 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard CZlib_inflateInit2(&stream, 15 + 16) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var rc: Int32 = Z_OK
        bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    rc = inflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
            } while rc == Z_OK && output.count <= maxBytes && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        guard rc == Z_STREAM_END, output.count <= maxBytes else { return nil }
        return output
    }
}
