//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How the server accepts upgrades.
public struct WebSocketHandshakeConfiguration: Sendable {
    /// Subprotocols we speak, in preference order.
    public var supportedSubprotocols: [String] = []
    /// Refuse clients that offer none of them.
    public var requireSubprotocol = false
    /// Allowed `Origin` values (`scheme://host[:port]`, exact, case-insensitive); nil allows any.
    public var allowedOrigins: [String]? = nil
    /// With an allow-list, whether requests without `Origin` (non-browser clients) are allowed.
    public var allowNoOrigin = true
    /// With an allow-list, whether an `Origin` equal to `http://` or `https://` followed by the request's `Host`
    /// (a page served by this server itself) is allowed too. The scheme is not compared: behind a proxy that
    /// ends TLS the server sees plain HTTP from an `https://` page.
    public var allowSameOrigin = false
    /// permessage-deflate, or nil to decline it.
    public var permessageDeflate: PerMessageDeflateConfiguration? = PerMessageDeflateConfiguration()
    public init() {}
}
