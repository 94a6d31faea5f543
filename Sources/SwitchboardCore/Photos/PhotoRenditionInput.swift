//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One encoded rendition to store.
public struct PhotoRenditionInput: Sendable {
    /// `display` or `thumb`.
    public var size: String
    /// `webp` or `jpeg`.
    public var format: String
    public var width: Int
    public var height: Int
    public var bytes: [UInt8]
    /// SHA-256 of `bytes` (the ETag).
    public var sha256: [UInt8]

    public init(size: String, format: String, width: Int, height: Int, bytes: [UInt8], sha256: [UInt8]) {
        self.size = size
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
        self.sha256 = sha256
    }
}
