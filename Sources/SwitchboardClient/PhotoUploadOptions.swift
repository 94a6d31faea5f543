//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How a photo upload travels: one `POST /photos` with the whole file, or a tus 1.0.0 resumable upload to
/// `/uploads` in chunks, finished by `POST /photos?upload={id}` (docs/photos.md).
public struct PhotoUploadOptions: Sendable, Equatable {
    /// Keep the file's metadata (EXIF, GPS): `keep_metadata=1`. Default false: the server strips every block.
    public var keepMetadata: Bool
    /// Files larger than this many bytes go through tus (default 5 MiB); smaller ones in one request.
    public var resumableThreshold: Int
    /// The bytes of one tus `PATCH` (default 1 MiB): what a dropped connection can cost at most.
    public var chunkSize: Int
    /// How many failed `PATCH`es in a row (a dropped connection, a timeout, 5xx, 409) are resumed from the server's
    /// offset (`HEAD`) before the upload fails (default 5).
    public var maxResumes: Int

    public init(
        keepMetadata: Bool = false, resumableThreshold: Int = 5 << 20, chunkSize: Int = 1 << 20, maxResumes: Int = 5
    ) {
        self.keepMetadata = keepMetadata
        self.resumableThreshold = resumableThreshold
        self.chunkSize = max(1, chunkSize)
        self.maxResumes = max(0, maxResumes)
    }
}
