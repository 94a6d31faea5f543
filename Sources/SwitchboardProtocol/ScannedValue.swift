//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A top-level member's value as `EnvelopeScanner.members` reads it; valid only inside the callback (it
/// points into the request's bytes).
enum ScannedValue {
    /// A string without escapes: its bytes between the quotes.
    case plainString(UnsafeBufferPointer<UInt8>.SubSequence)
    /// A string with escapes (validated; no surrogate escapes): its bytes between the quotes.
    case escapedString(UnsafeBufferPointer<UInt8>.SubSequence)
    /// A plain integer that fits in 64 bits (no fraction, no exponent).
    case integer(Int64)
    case null
    /// Anything else (true, false, another number, an object, an array), validated and skipped.
    case other
}

extension ScannedValue {
    /// The value of an optional integer field: `.some(nil)` for null, nil for another type.
    var optionalInteger: Int64?? {
        switch self {
        case .integer(let v): v
        case .null: .some(nil)
        default: nil
        }
    }

    /// The value of an optional string field: `.some(nil)` for null, nil for another type.
    var optionalString: String?? {
        switch self {
        case .plainString(let s): String(decoding: s, as: UTF8.self)
        case .escapedString(let s): EnvelopeScanner.unescape(s)
        case .null: .some(nil)
        default: nil
        }
    }
}
