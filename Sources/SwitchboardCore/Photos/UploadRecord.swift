//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A resumable (tus 1.0) upload in progress.
public struct UploadRecord: Sendable, Equatable {
    public var id: String
    public var ownerId: Int64
    /// `photo` or `voice`.
    public var kind: String
    public var length: Int64
    public var received: Int64
    /// The raw `Upload-Metadata` header.
    public var metadata: String
}
