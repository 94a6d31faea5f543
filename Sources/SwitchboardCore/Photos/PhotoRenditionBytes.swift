//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A rendition as served: its ETag hash and (unless the caller has them cached) its bytes.
public struct PhotoRenditionBytes: Sendable {
    public var sha256: [UInt8]
    public var bytes: [UInt8]?
}
