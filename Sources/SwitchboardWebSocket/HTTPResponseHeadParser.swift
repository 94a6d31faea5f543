//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An incremental HTTP/1.1 response-head parser (the client role).
public struct HTTPResponseHeadParser: Sendable {
    private var inner: HTTPHeadParser

    public init(limits: HTTPParserLimits = HTTPParserLimits()) { inner = HTTPHeadParser(limits: limits) }

    /// Feeds bytes; the head ends at CRLF CRLF.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> HTTPParseResult<HTTPResponseHead> {
        // Reuse the request parser's framing; parse the status line ourselves.
        var framing = inner
        defer { inner = framing }
        return framing.feedResponse(bytes)
    }
}
