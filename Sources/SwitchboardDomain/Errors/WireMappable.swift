//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An error that knows its wire answer. The router answers a handler's failure with `wire`, so a feature's
/// typed error is mapped to a code and message in one place (its own `wire` property), never at the throw site.
public protocol WireMappable: Error, Sendable {
    /// The answer on the wire: code, message, extra fields, and the cause to log for an `internal` answer.
    var wire: ServiceError { get }
}

extension ServiceError: WireMappable {
    /// Itself: the wire form (handlers not yet given a typed error throw it directly).
    public var wire: ServiceError { self }
}
