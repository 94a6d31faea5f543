//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of feeding bytes to a head parser.
public enum HTTPParseResult<Head: Sendable>: Sendable {
    /// The head is not complete yet; everything given was buffered.
    case needMoreData
    /// A complete head; `consumed` bytes of the last input belonged to it (the rest is body or frames).
    case head(Head, consumed: Int)
    /// The head is invalid.
    case error(HTTPParseError)
}
