//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Synchronization

/// Login attempt limits per phone number and per address (`LoginLimits`): `login` and the password check of
/// `account.delete` draw from the same buckets. Thread-safe: both buckets sit behind one mutex, so an attempt
/// refused by the address bucket costs the phone number's nothing.
public final class LoginLimiter: Sendable {
    /// The two bucket sets.
    private struct Buckets {
        var byPhone: RateLimiter<String>
        var byAddress: RateLimiter<String>
    }

    // protected by its mutex
    private let buckets: Mutex<Buckets>

    /// Buckets for `limits` (at most 100,000 keys each).
    public init(_ limits: LoginLimits) {
        buckets = Mutex(
            Buckets(
                byPhone: RateLimiter(
                    capacity: Double(limits.perPhoneBurst),
                    refillPerSecond: 1 / max(limits.perPhoneIntervalSeconds, 0.000_001), maxKeys: 100_000),
                byAddress: RateLimiter(
                    capacity: Double(limits.perAddressBurst),
                    refillPerSecond: 1 / max(limits.perAddressIntervalSeconds, 0.000_001), maxKeys: 100_000)))
    }

    /// nil when allowed, else nanoseconds to wait. `cost`: the nodes sharing the limits (each charges that many
    /// per attempt, at most a bucket's burst).
    public func attempt(phone: String, address: String, now: UInt64, cost: Int = 1) -> UInt64? {
        buckets.withLock { b in
            let c = Double(max(1, cost))
            if case .limited(let retry) = b.byAddress.attempt(address, now: now, cost: min(c, b.byAddress.capacity)) {
                return retry
            }
            if case .limited(let retry) = b.byPhone.attempt(phone, now: now, cost: min(c, b.byPhone.capacity)) {
                return retry
            }
            return nil
        }
    }

    /// Milliseconds to wait for a refusal of `nanoseconds`, rounded up (retrying at the given time succeeds).
    public static func milliseconds(_ nanoseconds: UInt64) -> Int64 { Int64((nanoseconds + 999_999) / 1_000_000) }
}
