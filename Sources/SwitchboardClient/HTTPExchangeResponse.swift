//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A complete HTTP response read by an `HTTPExchange`.
public struct HTTPExchangeResponse: Sendable {
    /// The status code (`201`, `206`, `404`, ...).
    public var status: Int
    /// The header fields, in order, as received.
    public var headers: [(name: String, value: String)]
    /// The body (at most the exchange's limit).
    public var body: [UInt8]

    /// The first value of a header field (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}
