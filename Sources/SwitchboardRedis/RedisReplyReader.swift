//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CHiredis

/// hiredis' RESP2 reply parser behind an owning wrapper: bytes in, `RedisValue`s out, no I/O.
///
/// Limits: an array of more than `maxElements` elements, arrays nested deeper than 7 (hiredis' own limit), and a
/// reply for which more than `maxReplyBytes` bytes arrived without completing it are protocol errors. After an
/// error the reader is unusable (the stream is out of step): its owner drops the connection.
///
/// Not thread-safe: one owner (a connection, confined to its queue or thread). Frees the hiredis reader in deinit.
final class RedisReplyReader {
    private let reader: UnsafeMutablePointer<redisReader>
    private let maxReplyBytes: Int
    /// Bytes fed since the last complete reply (an upper bound of the size of the reply being read).
    /// Protected by: the owner's confinement.
    private var bytesSinceReply = 0
    /// The first error; sticky. Protected by: the owner's confinement.
    private var failure: RedisError?

    /// - Parameters:
    ///   - maxElements: the largest array accepted.
    ///   - maxReplyBytes: the most bytes one incomplete reply may hold buffered.
    init(maxElements: Int, maxReplyBytes: Int) {
        guard let reader = CHiredis_readerCreate(Int64(maxElements)) else { fatalError("hiredis: out of memory") }
        self.reader = reader
        self.maxReplyBytes = maxReplyBytes
    }

    deinit { CHiredis_readerFree(reader) }

    /// Appends received bytes.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(RedisError) {
        if let failure { throw failure }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else {
            throw fail(.protocolError("hiredis could not buffer the input"))
        }
        bytesSinceReply += bytes.count
    }

    /// Appends received bytes.
    func feed(_ bytes: [UInt8]) throws(RedisError) {
        try bytes.withUnsafeBytes { (raw) -> Result<Void, RedisError> in
            do throws(RedisError) {
                try feed(raw)
                return .success(())
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// The next complete reply, or nil when more bytes are needed.
    /// - Throws: `RedisError.protocolError` for input that is not RESP2 or exceeds the limits.
    func next() throws(RedisError) -> RedisValue? {
        if let failure { throw failure }
        var object: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &object) == REDIS_OK else {
            if CHiredis_readerLimitExceeded(reader) != 0 {
                throw fail(.protocolError("an array reply larger than the element limit"))
            }
            let message = String(cString: CHiredis_readerError(reader))
            throw fail(.protocolError(message.isEmpty ? "malformed reply" : message))
        }
        guard let object else {
            if bytesSinceReply > maxReplyBytes {
                throw fail(.protocolError("a reply larger than \(maxReplyBytes) bytes"))
            }
            return nil
        }
        defer { freeReplyObject(object) }
        bytesSinceReply = CHiredis_readerBuffered(reader)
        return Self.value(of: object.assumingMemoryBound(to: redisReply.self))
    }

    private func fail(_ error: RedisError) -> RedisError {
        failure = error
        return error
    }

    private static func value(of reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STRING:
            guard let str = r.str, r.len > 0 else { return .bulk([]) }
            return .bulk(Array(UnsafeRawBufferPointer(start: str, count: r.len)))
        case REDIS_REPLY_STATUS, REDIS_REPLY_ERROR:
            let text: String
            if let str = r.str, r.len > 0 {
                text = String(decoding: UnsafeRawBufferPointer(start: str, count: r.len), as: UTF8.self)
            } else {
                text = ""
            }
            return r.type == REDIS_REPLY_STATUS ? .simpleString(text) : .error(text)
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(r.integer))
        case REDIS_REPLY_NIL:
            return .null
        case REDIS_REPLY_ARRAY:
            guard let elements = r.element, r.elements > 0 else { return .array([]) }
            var values: [RedisValue] = []
            values.reserveCapacity(r.elements)
            for i in 0..<r.elements {
                guard let element = elements[i] else {
                    values.append(.null)
                    continue
                }
                values.append(value(of: element))
            }
            return .array(values)
        default:
            return .null
        }
    }
}
