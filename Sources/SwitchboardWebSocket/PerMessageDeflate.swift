//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CZlib

/// Server-side permessage-deflate settings (RFC 7692).
public struct PerMessageDeflateConfiguration: Sendable {
    /// Ask clients to reset their compressor per message (saves our inflate window memory).
    public var requestClientNoContextTakeover: Bool = false
    /// Reset our compressor per message even if the client did not ask.
    public var serverNoContextTakeover: Bool = false
    /// Our LZ77 window (9...15).
    public var serverMaxWindowBits: Int = 15
    /// zlib level 0...9.
    public var compressionLevel: Int32 = 6
    /// zlib memLevel 1...9.
    public var memoryLevel: Int32 = 8
    /// Messages shorter than this are sent uncompressed.
    public var minimumSizeToCompress: Int = 32
    public init() {}
}

/// What both sides agreed on.
public struct PerMessageDeflateParameters: Equatable, Sendable {
    public var serverNoContextTakeover = false
    public var clientNoContextTakeover = false
    public var serverMaxWindowBits = 15
    public var clientMaxWindowBits = 15
    public init() {}

    /// The extension header value that states these parameters.
    public var headerValue: String {
        var parts = ["permessage-deflate"]
        if serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if serverMaxWindowBits < 15 { parts.append("server_max_window_bits=\(serverMaxWindowBits)") }
        if clientMaxWindowBits < 15 { parts.append("client_max_window_bits=\(clientMaxWindowBits)") }
        return parts.joined(separator: "; ")
    }
}

/// Parses `Sec-WebSocket-Extensions` and picks the first acceptable permessage-deflate offer.
public enum PerMessageDeflateNegotiation {
    /// The parameters to accept, or nil when no offer is acceptable.
    public static func negotiate(
        offers headerValues: [String],
        configuration: PerMessageDeflateConfiguration
    ) -> PerMessageDeflateParameters? {
        for value in headerValues {
            for offer in splitOutsideQuotes(value, separator: ",") {
                if let accepted = accept(offer: offer, configuration: configuration) { return accepted }
            }
        }
        return nil
    }

    static func accept(offer: String, configuration: PerMessageDeflateConfiguration) -> PerMessageDeflateParameters? {
        let parts = splitOutsideQuotes(offer, separator: ";").map { trimOWS($0) }
        guard let name = parts.first, asciiCaseEqual(name, "permessage-deflate") else { return nil }
        var result = PerMessageDeflateParameters()
        var seen = Set<String>()
        var clientWindowOffered = false
        var serverWindowRequested: Int? = nil
        var clientWindowRequested: Int? = nil
        for part in parts.dropFirst() {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { trimOWS($0) }
            // An empty parameter (`permessage-deflate;;`) or a missing name (`=15`) makes the offer malformed.
            guard let name = kv.first, !name.isEmpty else { return nil }
            let key = name.lowercased()
            var value: String? = kv.count > 1 ? kv[1] : nil
            if let v = value, v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 {
                value = String(v.dropFirst().dropLast())
            }
            guard seen.insert(key).inserted else { return nil }  // duplicate parameter: decline the offer
            switch key {
            case "server_no_context_takeover":
                guard value == nil else { return nil }
                result.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { return nil }
                result.clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let v = value, let bits = parseBits(v) else { return nil }
                serverWindowRequested = bits
            case "client_max_window_bits":
                if let v = value {
                    guard let bits = parseBits(v) else { return nil }
                    clientWindowRequested = bits
                }
                clientWindowOffered = true
            default:
                return nil
            }
        }
        if configuration.serverNoContextTakeover { result.serverNoContextTakeover = true }
        if configuration.requestClientNoContextTakeover { result.clientNoContextTakeover = true }
        var serverBits = min(configuration.serverMaxWindowBits, 15)
        if let requested = serverWindowRequested { serverBits = min(serverBits, requested) }
        // zlib cannot produce a raw deflate stream with an 8-bit window (deflateInit2 refuses -8); a
        // 9-bit window would break the client's 8-bit limit, so such an offer is declined.
        if serverBits < 9 { return nil }
        result.serverMaxWindowBits = serverBits
        // We inflate with a 15-bit window always, which accepts any client window; we only state the
        // client's window if the client offered the parameter and asked for less.
        if let requested = clientWindowRequested, clientWindowOffered { result.clientMaxWindowBits = requested }
        return result
    }

    static func parseBits(_ s: String) -> Int? {
        guard s.utf8.count <= 2, s.utf8.allSatisfy(isDigit), let bits = Int(s), (8...15).contains(bits),
            !s.hasPrefix("0")
        else { return nil }
        return bits
    }

    static func splitOutsideQuotes(_ s: String, separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for c in s {
            if c == "\"" { quoted.toggle() }
            if c == separator && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        return parts
    }
}

/// Errors of compression.
public enum DeflateError: Error, Equatable, Sendable {
    /// The compressed data is invalid.
    case corrupt
    /// The inflated message would exceed the limit.
    case tooLarge
    /// zlib could not allocate or initialise.
    case zlib(Int32)
}

private let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

/// A raw-deflate compressor for one direction of one connection; owns its `z_stream`.
public final class MessageCompressor {
    private var stream = z_stream()
    private let resetEachMessage: Bool

    /// - Parameters:
    ///   - windowBits: 9...15.
    ///   - noContextTakeover: reset the dictionary after every message.
    public init(windowBits: Int, noContextTakeover: Bool, level: Int32 = 6, memoryLevel: Int32 = 8) throws(DeflateError) {
        resetEachMessage = noContextTakeover
        let rc = CZlib_deflateInit2(&stream, level, -Int32(max(9, windowBits)), memoryLevel)
        guard rc == Z_OK else { throw .zlib(rc) }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses one message: deflate, sync flush, the trailing 00 00 FF FF removed.
    public func compress(_ input: UnsafeRawBufferPointer) throws(DeflateError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        var produced = 0
        var rc: Int32 = Z_OK
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = uInt(input.count)
        repeat {
            if produced == output.count { output.append(contentsOf: repeatElement(0, count: max(64, output.count))) }
            rc = output.withUnsafeMutableBytes { out in
                stream.next_out = out.baseAddress!.assumingMemoryBound(to: UInt8.self) + produced
                stream.avail_out = uInt(out.count - produced)
                let r = deflate(&stream, Z_SYNC_FLUSH)
                produced = out.count - Int(stream.avail_out)
                return r
            }
            guard rc == Z_OK || rc == Z_BUF_ERROR else { throw .zlib(rc) }
        } while stream.avail_out == 0
        stream.next_in = nil
        output.removeSubrange(produced...)
        if output.count >= 4 && Array(output.suffix(4)) == tail { output.removeLast(4) }
        if resetEachMessage { deflateReset(&stream) }
        return output
    }
}

/// A raw-inflate decompressor for one direction of one connection; owns its `z_stream`.
public final class MessageDecompressor {
    private var stream = z_stream()
    private let resetEachMessage: Bool

    /// Inflates with a 15-bit window, which reads any peer window size.
    public init(noContextTakeover: Bool) throws(DeflateError) {
        resetEachMessage = noContextTakeover
        let rc = CZlib_inflateInit2(&stream, -15)
        guard rc == Z_OK else { throw .zlib(rc) }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates one message (the 00 00 FF FF tail appended), refusing to produce more than `limit` bytes.
    public func decompress(_ input: [UInt8], limit: Int) throws(DeflateError) -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(input.count * 4, 1024), 64 * 1024))
        var failure: DeflateError? = nil
        func run(_ data: UnsafeRawBufferPointer) -> Bool {
            stream.next_in = UnsafeMutablePointer(mutating: data.baseAddress?.assumingMemoryBound(to: UInt8.self))
            stream.avail_in = uInt(data.count)
            while true {
                var rc: Int32 = Z_OK
                let produced: Int = chunk.withUnsafeMutableBytes { out in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    stream.avail_out = uInt(out.count)
                    rc = inflate(&stream, Z_SYNC_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                if rc != Z_OK && rc != Z_BUF_ERROR && rc != Z_STREAM_END {
                    failure = .corrupt
                    return false
                }
                if output.count + produced > limit {
                    failure = .tooLarge
                    return false
                }
                output.append(contentsOf: chunk[0..<produced])
                if rc == Z_STREAM_END {
                    // A final block ends the stream; further data would be garbage.
                    inflateReset(&stream)
                    if stream.avail_in > 0 { failure = .corrupt; return false }
                    return true
                }
                if stream.avail_in == 0 && stream.avail_out > 0 { return true }
                if rc == Z_BUF_ERROR && produced == 0 { return true }
            }
        }
        let ok = input.withUnsafeBytes { run($0) } && tail.withUnsafeBytes { run($0) }
        stream.next_in = nil
        if !ok {
            inflateReset(&stream)
            throw failure ?? .corrupt
        }
        if resetEachMessage { inflateReset(&stream) }
        return output
    }
}
