//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// libFuzzer target: the Redis reply reader (hiredis' RESP2 parser behind RedisReplyReader, with its element and
// byte limits) on whatever a broken or hostile server could send. The input is parsed twice, whole and in chunks
// whose sizes come from the input itself: both must give the same replies and fail (or not) alike.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedisReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = parse([bytes[...]])
    var chunks: [ArraySlice<UInt8>] = []
    var offset = 0
    var step = 1
    while offset < bytes.count {
        let end = min(bytes.count, offset + step)
        chunks.append(bytes[offset..<end])
        offset = end
        step = Int(bytes[end - 1] % 7) + 1
    }
    let pieces = parse(chunks)
    precondition(whole.values == pieces.values, "chunked input parsed differently")
    precondition(whole.failed == pieces.failed, "chunked input failed differently")
    return 0
}

private func parse(_ chunks: [ArraySlice<UInt8>]) -> (values: [RedisValue], failed: Bool) {
    let reader = RedisReplyReader(maxElements: 1024, maxReplyBytes: 1 << 16)
    var values: [RedisValue] = []
    do {
        for chunk in chunks {
            try reader.feed(Array(chunk))
            while let value = try reader.next() { values.append(value) }
        }
    } catch {
        // The error sticks: the reader never yields a reply after it.
        precondition((try? reader.next()) == nil, "a reply after an error")
        return (values, true)
    }
    return (values, false)
}
