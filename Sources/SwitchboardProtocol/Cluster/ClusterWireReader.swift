//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Reads what `ClusterWireWriter` wrote, defensively: every read is nil when the bytes are short or malformed.
public struct ClusterWireReader {
    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0
    public init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }
    public var remaining: Int { b.count - i }
    public mutating func byte() -> UInt8? {
        guard i < b.count else { return nil }
        defer { i += 1 }
        return b[i]
    }
    /// A byte that must be 1 or 0.
    public mutating func flag() -> Bool? {
        guard let v = byte(), v <= 1 else { return nil }
        return v == 1
    }
    /// `Int64??`: nil when malformed, `.some(nil)` for an absent value.
    public mutating func optional() -> Int64?? {
        guard let f = flag() else { return nil }
        guard f else { return .some(nil) }
        guard let v = i64() else { return nil }
        return .some(v)
    }
    public mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(b[i + k]) << (8 * UInt32(k)) }
        i += 4
        return v
    }
    public mutating func u64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(b[i + k]) << (8 * UInt64(k)) }
        i += 8
        return v
    }
    public mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
    /// `n` values in a row; the caller checked that `remaining >= n * 8`.
    public mutating func u64s(_ n: Int) -> [UInt64] {
        precondition(remaining >= n * 8)
        let start = i
        i += n * 8
        #if _endian(little)
        return [UInt64](unsafeUninitializedCapacity: n) { values, count in
            UnsafeMutableRawBufferPointer(values).copyMemory(
                from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[start..<start + n * 8])))
            count = n
        }
        #else
        return (0..<n).map { k in
            var v: UInt64 = 0
            for j in 0..<8 { v |= UInt64(b[start + 8 * k + j]) << (8 * UInt64(j)) }
            return v
        }
        #endif
    }
    /// A count, at most `maxCount`.
    public mutating func count() -> Int? {
        guard let n = u32(), n <= ClusterWire.maxCount else { return nil }
        return Int(n)
    }
    public mutating func bytes() -> [UInt8]? {
        guard let n = u32(), Int(n) <= remaining else { return nil }
        defer { i += Int(n) }
        return Array(b[i..<(i + Int(n))])
    }
    /// A byte string that is valid UTF-8.
    public mutating func string() -> String? {
        guard let raw = bytes() else { return nil }
        return String(validating: raw, as: UTF8.self)
    }
}
