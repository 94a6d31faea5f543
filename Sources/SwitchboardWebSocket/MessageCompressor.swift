//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CZlib

/// The 00 00 FF FF a sync flush ends with (RFC 7692): removed after compressing, appended before
/// inflating.
let syncFlushTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

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
        if output.count >= 4 && Array(output.suffix(4)) == syncFlushTail { output.removeLast(4) }
        if resetEachMessage { deflateReset(&stream) }
        return output
    }
}
