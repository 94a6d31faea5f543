//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Login attempt limits (token buckets): a burst, then one attempt per interval (`--login-burst-per-phone`,
/// `--login-interval-per-phone`, `--login-burst-per-address`, `--login-interval-per-address`).
public struct LoginLimits: Sendable {
    /// Attempts per phone number before the limit.
    public var perPhoneBurst = 5
    /// Seconds per further attempt per phone number.
    public var perPhoneIntervalSeconds = 12.0
    /// Attempts per client address before the limit.
    public var perAddressBurst = 20
    /// Seconds per further attempt per client address.
    public var perAddressIntervalSeconds = 3.0

    public init() {}
}
