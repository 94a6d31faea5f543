//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A parsed request head.
public struct HTTPRequestHead: Sendable {
    public var method: String
    /// The request target as sent.
    public var target: String
    /// The target without its query.
    public var path: String
    /// The query (after `?`), if any.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// Whether the connection stays open after the response.
    public var keepAlive: Bool
    /// The declared body length, if any.
    public var contentLength: Int?
    /// Whether the body is chunked.
    public var isChunked: Bool
}
