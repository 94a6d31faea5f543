//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Limits of the request-head parser.
public struct HTTPParserLimits: Sendable {
    /// Longest request line (414 past it).
    public var maxRequestLineLength: Int = 8192
    /// Largest head in bytes, request line included (431 past it).
    public var maxHeaderBytes: Int = 16_384
    /// Most header fields (431 past it).
    public var maxHeaderCount: Int = 100
    public init(maxRequestLineLength: Int = 8192, maxHeaderBytes: Int = 16_384, maxHeaderCount: Int = 100) {
        self.maxRequestLineLength = maxRequestLineLength
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
    }
}
