//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One stored rendition of a photo (`PhotoInfo.renditions`): `{size, format, width, height, byte_count, url}`.
public struct PhotoRenditionInfo: Codable, Sendable, Equatable {
    /// `display` or `thumb`.
    public var size: String
    /// `webp` or `jpeg`.
    public var format: String
    public var width: Int
    public var height: Int
    /// The rendition's length in bytes.
    public var byteCount: Int64
    /// Its path on the server (`/photos/{id}?size=...&format=...`).
    public var url: String

    public init(size: String, format: String, width: Int, height: Int, byteCount: Int64, url: String) {
        self.size = size
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.url = url
    }
}
