//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import Testing

@testable import SwitchboardServer

/// A stored rendition of `photo` (`size`, `format`) of `length` bytes, made in SQL.
private func serviceRendition(_ photo: Int64, _ size: String, _ format: String, length: Int) async throws {
    try await serviceSQL(
        """
        INSERT INTO photo_renditions (photo_id, size, format, width, height, bytes, sha256)
        VALUES ($1, $2, $3, 64, 48, decode(repeat('ab', $4), 'hex'), decode(repeat('cd', 32), 'hex'))
        """, [.int(photo), .text(size), .text(format), .int(Int64(length))])
}

/// `PhotoLibraryService.info` (`GET /photos/{id}/info`) without sockets: authorized like the photo (`PhotoAccess`),
/// the same `noSuchPhoto` for missing, malformed and invisible ids, and the renditions in order with their lengths.
@Suite("Photo info (the test database)")
struct PhotoInfoServiceTests {
    @Test func aPhotosInfoIsAuthorizedLikeThePhotoAndListsItsRenditions() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, sam) = (try await db.user("ann"), try await db.user("bob"), try await db.user("sam"))
        try await db.befriend(ann, bob)
        let photo = try await servicePhoto(owner: ann)
        for (size, format, length) in [("thumb", "jpeg", 40), ("display", "jpeg", 300), ("display", "webp", 200)] {
            try await serviceRendition(photo, size, format, length: length)
        }
        let photos = PhotoLibraryService(db: try db.pool, live: RecordingPublisher())
        let info = try await photos.info(viewer: ann, photoId: photo)
        #expect(info.photoId == photo && info.ownerId == ann)
        #expect(info.width == 4032 && info.height == 3024 && info.format == "jpeg" && info.color == "#a3b1c2")
        // Display first, WebP before JPEG; lengths from the stored bytes.
        #expect(
            info.renditions.map { "\($0.size) \($0.format) \($0.byteCount)" } == [
                "display webp 200", "display jpeg 300", "thumb jpeg 40",
            ])
        #expect(info.renditions.first?.url == "/photos/\(photo)?size=display&format=webp")
        // Not in a moment yet: a friend may not see it; nor a stranger; nor a malformed id.
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.info(viewer: bob, photoId: photo) }
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.info(viewer: sam, photoId: photo) }
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.info(viewer: ann, photoId: nil) }
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.info(viewer: ann, photoId: 999_999_999) }
        // In a moment: the friend sees it, until a block.
        let momentId = try #require(
            try await db.pool.withConnection { db in
                try db.execute(
                    cached: "INSERT INTO moments (owner_id) VALUES ($1) RETURNING id", [.int(ann)]
                ).decodeFirst(Int64.self)
            })
        try await serviceSQL(
            "INSERT INTO moment_photos (moment_id, position, photo_id) VALUES ($1, 0, $2)",
            [.int(momentId), .int(photo)])
        #expect(try await photos.info(viewer: bob, photoId: photo) == info)
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.info(viewer: sam, photoId: photo) }
        try await serviceBlock(bob, ann)
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.info(viewer: bob, photoId: photo) }
    }
}
