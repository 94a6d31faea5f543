//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{photo_id}`.
public struct PhotoIdParameters: Codable, Sendable, Equatable {
    public var photoId: Int64
    public init(photoId: Int64) { self.photoId = photoId }
}
