//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// One's own photos and the profile picture: `photos.mine`, `photos.delete`, `profile.avatar.set`,
/// `profile.avatar.remove` (docs/protocol.md, "Photos and avatars"), and the photo routes over HTTP (docs/photos.md):
/// `GET /photos/{id}/info` (a `handler` route: bearer token, no body, `PhotoLibraryService.info`), and uploads,
/// downloads and tus (`session` routes: tokens checked before bodies, bodies into upload slots; `PhotoService`).
/// Each op handler decodes, asks `PhotoLibraryService` (one transaction), delivers its events after the commit
/// (`profile.updated` to my devices, friends and active followers; `moment.deleted` for a moment left without
/// photos to the moment's audience; `post.photos`, through live pages, to the live viewers of each post that
/// carried the photo) and replies.
struct PhotosFeature: Feature {
    static let migrations: [Migration] = [.v0013Photos]

    let service: PhotoLibraryService
    /// Logs the cause of an info request's `internal` answer.
    let logger: Logger
    /// The limits of uploads, processing, the renditions' cache and tus (`PhotoService`'s, shared with voice's tus).
    let limits: PhotoConfiguration

    init(context: ProtocolServices) {
        service = PhotoLibraryService(db: context.pool, live: context.social)
        logger = context.logger
        limits = context.configuration.photos
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(PhotosAccountData.deletionSteps)
        let c = limits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "photos",
                values: [
                    ("photo-max-bytes", "\(c.maxBytes)"), ("photo-max-pixels", "\(c.maxPixels)"),
                    ("photo-heic-max-pixels", "\(c.maxHeifPixels)"), ("photo-heic-workers", "\(c.heifWorkers)"),
                    ("photo-workers", "\(c.workers)"), ("photo-max-waiting", "\(c.maxWaiting)"),
                    ("photo-cache-bytes", "\(c.cacheBytes)"),
                    ("upload-expiry-hours", "\(c.uploadExpirySeconds / 3600)"),
                    ("max-pending-uploads", "\(c.maxPendingUploads)"), ("photo-display-size", "\(c.displaySize)"),
                    ("photo-thumbnail-size", "\(c.thumbnailSize)"), ("photo-webp-quality", "\(c.webpQuality)"),
                    ("photo-webp-effort", "\(c.webpEffort)"), ("photo-jpeg-quality", "\(c.jpegQuality)"),
                ]))
        let service = self.service
        let logger = self.logger
        // First: the router takes the first route whose pattern matches, and `/photos/{id...}` below matches this
        // path too (for another method than GET and HEAD it still answers, 405, as before).
        registry.routes.add(["GET"], "/photos/{id}/info", .bearer) { request in
            guard let identity = request.identity else { return .error(401, "not_authenticated", "no session") }
            do throws(PhotoError) {
                return Self.json(try await service.info(viewer: identity.userId, photoId: request.id("id")))
            } catch {
                return Self.answer(error, userId: identity.userId, logger: logger)
            }
        }
        // Uploads, downloads and tus: `session` routes (tokens checked before bodies, bodies into upload slots).
        for path in ["/photos", "/photos/{id...}", "/uploads", "/uploads/{id...}"] {
            registry.routes.addSession(["*"], path) { session, head, rest, _ in session.handlePhotos(head, rest: rest) }
        }
        registry.operations.register(Ops.PhotosMine.self) { s, p async throws(PhotoError) -> Ops.PhotosMine.Result in
            try await service.mine(user: s.userId, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.PhotosDelete.self) { s, p async throws(PhotoError) -> Empty in
            s.deliver(try await service.delete(s.caller, photoId: p.photoId))
            return Empty()
        }
        registry.operations.register(Ops.ProfileAvatarSet.self) { s, p async throws(PhotoError) -> AvatarResult in
            let (result, events) = try await service.setAvatar(s.caller, photoId: p.photoId)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.ProfileAvatarRemove.self) { s, _ async throws(PhotoError) -> AvatarResult in
            let (result, events) = try await service.setAvatar(s.caller, photoId: nil)
            s.deliver(events)
            return result
        }
    }

    /// A photo's info as the route's 200 answer: JSON in the protocol's form (snake case), not cached as is (who
    /// may see a photo changes with friendships, blocks and deletions).
    static func json(_ info: PhotoInfo) -> HTTPResult {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and integers cannot fail.
        let body = (try? encoder.encode(info)).map { Array($0) } ?? Array("{}".utf8)
        return HTTPResult(
            status: 200,
            headers: [
                ("Content-Type", "application/json"), ("Cache-Control", "private, no-cache"),
                ("X-Content-Type-Options", "nosniff"),
            ],
            body: body)
    }

    /// A refusal as the route's answer: 404 exactly as `GET /photos/{id}` answers a missing photo, 503 with
    /// `Retry-After` while the database is busy or away, 500 (logged with its cause) for anything else.
    static func answer(_ error: PhotoError, userId: Int64, logger: Logger) -> HTTPResult {
        let wire = error.wire
        switch wire.code {
        case .notFound: return .error(404, wire.code.rawValue, wire.message)
        case .unavailable: return .error(503, wire.code.rawValue, wire.message, headers: [("Retry-After", "2")])
        default:
            logger.error(
                "photo request failed",
                metadata: [
                    LogKey.op: "photos.info", LogKey.userId: "\(userId)",
                    LogKey.error: "\(wire.underlying.map { "\($0)" } ?? wire.message)",
                ])
            return .error(500, wire.code.rawValue, wire.message)
        }
    }
}
