//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The answer to `GET /voice/{id}`: 200 (the whole clip), 206 (a range) or 304 (`ifNoneMatch` matched).
public struct VoiceDownload: Sendable {
    /// 200, 206 or 304.
    public var status: Int
    /// The body: the Ogg/Opus file or the requested part of it (empty with 304).
    public var bytes: [UInt8]
    /// The response's header fields as received (`Content-Type`, `Content-Range`, `ETag`, ...).
    public var headers: [(name: String, value: String)]

    /// The first value of a header field (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// `Content-Type` (`audio/ogg`).
    public var contentType: String? { header("content-type") }
    /// The `ETag` (the quoted SHA-256 of the file).
    public var etag: String? { header("etag") }
    /// `Content-Range` of a 206 (`bytes 0-99/9321`).
    public var contentRange: String? { header("content-range") }
}
