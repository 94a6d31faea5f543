//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One size of a processed photo, encoded twice.
public struct ImageRendition: Sendable, Equatable {
    /// Width in pixels (upright).
    public var width: Int
    /// Height in pixels (upright).
    public var height: Int
    /// The rendition as lossy WebP (with alpha if the original had transparency): what clients should fetch.
    public var webp: [UInt8]
    /// The rendition as baseline JPEG (transparency flattened onto white): the fallback for clients without WebP.
    public var jpeg: [UInt8]

    /// Creates a rendition.
    public init(width: Int, height: Int, webp: [UInt8], jpeg: [UInt8]) {
        self.width = width
        self.height = height
        self.webp = webp
        self.jpeg = jpeg
    }
}
