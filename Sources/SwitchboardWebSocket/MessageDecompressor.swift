//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CZlib

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
        let ok = input.withUnsafeBytes { run($0) } && syncFlushTail.withUnsafeBytes { run($0) }
        stream.next_in = nil
        if !ok {
            inflateReset(&stream)
            throw failure ?? .corrupt
        }
        if resetEachMessage { inflateReset(&stream) }
        return output
    }
}
