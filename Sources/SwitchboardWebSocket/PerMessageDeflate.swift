//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CZlib

private let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

/// A raw-deflate compressor for one direction of one connection; owns its `z_stream`.
public final class MessageCompressor {
    private var stream = z_stream()
    private let resetEachMessage: Bool

    /// - Parameters:
    ///   - windowBits: 9...15.
    ///   - noContextTakeover: reset the dictionary after every message.
    public init(windowBits: Int, noContextTakeover: Bool, level: Int32 = 6, memoryLevel: Int32 = 8) throws(DeflateError)
    {
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
