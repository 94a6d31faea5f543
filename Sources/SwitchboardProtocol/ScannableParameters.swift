//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Parameters with a hand-written reader for their common shape, so that the hottest ops skip `JSONDecoder`
/// (`ProtocolCodec.parameterDecoder`). `scanned` answers only when it reads exactly what `JSONDecoder` (with
/// `convertFromSnakeCase`) would; for anything else (an unexpected key, a duplicate, a value of another type,
/// a surrogate escape) it is nil and `JSONDecoder` decides, with its documented errors. A differential fuzz
/// target (`fuzz/ProtocolFuzz.swift`) checks that it never disagrees.
public protocol ScannableParameters: Decodable, Sendable {
    /// The parameters of `request` (the whole request's JSON), or nil when `JSONDecoder` must decide.
    static func scanned(from request: [UInt8]) -> Self?
}
