//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A processed upload to store (the pipeline's output, without a dependency on the image module).
public struct PhotoInput: Sendable {
    /// SHA-256 of the uploaded bytes (the per-owner deduplication key).
    public var sha256: [UInt8]
    /// The sniffed input format: `jpeg`, `png`, `webp` or `heic`.
    public var format: String
    public var width: Int
    public var height: Int
    public var color: String
    public var hasAlpha: Bool
    public var keptMetadata: Bool
    public var renditions: [PhotoRenditionInput]

    public init(
        sha256: [UInt8], format: String, width: Int, height: Int, color: String, hasAlpha: Bool, keptMetadata: Bool,
        renditions: [PhotoRenditionInput]
    ) {
        self.sha256 = sha256
        self.format = format
        self.width = width
        self.height = height
        self.color = color
        self.hasAlpha = hasAlpha
        self.keptMetadata = keptMetadata
        self.renditions = renditions
    }
}
