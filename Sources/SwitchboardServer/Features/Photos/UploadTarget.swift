//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a request body is for, once its token (and for a PATCH its upload) is checked.
enum UploadTarget: Sendable {
    /// `POST /voice`.
    case voice
    /// `POST /photos`.
    case photo(keepMetadata: Bool)
    /// `PATCH /uploads/{id}` at `offset`.
    case chunk(id: String, owner: Int64, offset: Int64)
    /// A registered `upload` route (`HTTPRouter`): its request so far and its handler.
    case route(HTTPRouteRequest, @Sendable (HTTPRouteRequest) async -> HTTPResult)
}
