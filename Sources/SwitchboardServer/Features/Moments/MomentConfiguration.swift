//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

/// The limits of moments and of photos in posts (docs/protocol.md, "Moments"); `serve` sets them from its flags
/// (`MomentOptions`). Immutable once the server runs.
public struct MomentConfiguration: Sendable, Equatable {
    /// Photos per moment at most (`--moment-max-photos`).
    public var maxPhotos = 9
    /// The longest caption in characters, after trimming (`--moment-caption-max`).
    public var captionMax = 500
    /// Photos per post at most (`--post-max-photos`).
    public var postMaxPhotos = 4
    /// Moments per `moments.feed` page at most (`--moments-page-max`); the default page is 10 (or this, if smaller).
    public var pageMax = 50

    public init() {}

    /// A feed page size: `limit` or the default, refused outside 1...pageMax.
    func page(_ limit: Int?) throws(ServiceError) -> Int {
        let limit = limit ?? min(10, pageMax)
        guard (1...pageMax).contains(limit) else { throw ServiceError(.badRequest, "limit must be 1 to \(pageMax)") }
        return limit
    }
}

/// A page size in `range`, `fallback` when absent; `bad_request` outside.
func pageSize(_ limit: Int?, default fallback: Int, max: Int) throws(ServiceError) -> Int {
    let limit = limit ?? fallback
    guard (1...max).contains(limit) else { throw ServiceError(.badRequest, "limit must be 1 to \(max)") }
    return limit
}
