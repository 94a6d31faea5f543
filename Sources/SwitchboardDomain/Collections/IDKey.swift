//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A 64-bit id as a dictionary key, hashed by a short integer mixer (SplitMix64's finalizer of the id and the
/// dictionary's seed) instead of the standard library's SipHash-1-3.
///
/// For ids the server assigns (database ids, connection numbers), never for a value a client chooses: a client
/// cannot pick ids that collide, which is what SipHash guards a dictionary against, and the dictionary's
/// per-instance seed still changes the layout. Issue 17: a delivery looked up three such maps (the outbox's
/// connections, the registry's users, the connection's conversations), about 500 of its 3,100 instructions in
/// SipHash; the mixer is about 10.
public struct IDKey: Hashable, Sendable {
    public let rawValue: UInt64

    @inlinable public init(_ id: Int64) { rawValue = UInt64(bitPattern: id) }

    @inlinable public static func == (a: IDKey, b: IDKey) -> Bool { a.rawValue == b.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// What `Dictionary` and `Set` hash with.
    @inlinable public func _rawHashValue(seed: Int) -> Int { Int(bitPattern: UInt(IDKey.mix(rawValue, seed: seed))) }

    /// SplitMix64's finalizer of `value` and `seed` (a bijection of their xor).
    @inlinable public static func mix(_ value: UInt64, seed: Int) -> UInt64 {
        var x = value ^ UInt64(bitPattern: Int64(seed))
        x = (x ^ (x &>> 30)) &* 0xbf58_476d_1ce4_e5b9
        x = (x ^ (x &>> 27)) &* 0x94d0_49bb_1331_11eb
        return x ^ (x &>> 31)
    }
}
