//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Errors of compression.
public enum DeflateError: Error, Equatable, Sendable {
    /// The compressed data is invalid.
    case corrupt
    /// The inflated message would exceed the limit.
    case tooLarge
    /// zlib could not allocate or initialise.
    case zlib(Int32)
}
