//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The `error` object of a reply: `{code, message, retry_after_ms?, reason?}` (the Swift client's `ServerError`).
public struct ReplyError: Codable, Sendable, Equatable, Error, CustomStringConvertible {
    /// The error code as sent (see `ErrorCode`; a later server may send codes this version lacks).
    public var code: String
    /// A human-readable message (English; for logs and fallback display, not for program logic).
    public var message: String
    /// With `rate_limited`: milliseconds to wait before retrying.
    public var retryAfterMs: Int64?
    /// With `weak_password`: `too_short`, `single_character`, `sequence`, `common` or `contains_phone`.
    public var reason: String?

    /// An error reply's fields.
    public init(code: String, message: String, retryAfterMs: Int64? = nil, reason: String? = nil) {
        self.code = code
        self.message = message
        self.retryAfterMs = retryAfterMs
        self.reason = reason
    }

    /// The code, when this version knows it.
    public var errorCode: ErrorCode? { ErrorCode(rawValue: code) }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
