//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Immutable bytes in a stable heap allocation, shareable by many connections without copying
/// (one encoded frame fanned out to every member of a group).
public final class SharedBytes: @unchecked Sendable {
    // @unchecked Sendable: the memory is written once in init and never mutated afterwards.
    let pointer: UnsafeMutableRawPointer
    /// Number of bytes.
    public let count: Int

    /// Copies `bytes`.
    public init(_ bytes: [UInt8]) {
        count = bytes.count
        pointer = .allocate(byteCount: max(count, 1), alignment: 8)
        bytes.withUnsafeBytes { if count > 0 { pointer.copyMemory(from: $0.baseAddress!, byteCount: count) } }
    }

    /// Copies `bytes`.
    public init(copying bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        pointer = .allocate(byteCount: max(count, 1), alignment: 8)
        if count > 0 { pointer.copyMemory(from: bytes.baseAddress!, byteCount: count) }
    }

    deinit { pointer.deallocate() }

    /// The bytes, valid while `self` lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }
}
