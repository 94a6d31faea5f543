//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Appends the cluster bus's binary fields: integers little-endian, an optional integer as `flag (1) | i64`, byte
/// strings as `u32 length | bytes`. Shared by `ClusterWire` and the features that put their own batches on the bus.
public struct ClusterWireWriter {
    public var out: [UInt8] = []
    public init() {}
    public mutating func byte(_ b: UInt8) { out.append(b) }
    public mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
    public mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
    public mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    /// Values in a row (a fan-out's connections: one copy on a little-endian machine).
    public mutating func u64s(_ values: [UInt64]) {
        #if _endian(little)
        values.withUnsafeBytes { out.append(contentsOf: $0) }
        #else
        out.reserveCapacity(out.count + values.count * 8)
        for v in values { u64(v) }
        #endif
    }
    /// One byte, 1 or 0.
    public mutating func flag(_ v: Bool) { byte(v ? 1 : 0) }
    /// An optional integer: `flag | i64` when present.
    public mutating func optional(_ v: Int64?) {
        flag(v != nil)
        if let v { i64(v) }
    }
    public mutating func bytes(_ b: [UInt8]) {
        u32(UInt32(b.count))
        out.append(contentsOf: b)
    }
}
