//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a rate limiter decided.
public enum RateDecision: Equatable, Sendable {
    /// The attempt may proceed (a token was taken).
    case allowed
    /// Refused; a token will be available after this many nanoseconds.
    case limited(retryAfterNanoseconds: UInt64)

    /// The wait rounded up to whole milliseconds (for `retry_after_ms`), or nil when allowed.
    public var retryAfterMilliseconds: Int64? {
        guard case .limited(let ns) = self else { return nil }
        return Int64(min(ns / 1_000_000 + (ns % 1_000_000 == 0 ? 0 : 1), UInt64(Int64.max)))
    }
}
