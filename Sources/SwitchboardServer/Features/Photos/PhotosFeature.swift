//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// One's own photos and the profile picture: `photos.mine`, `photos.delete`, `profile.avatar.set`,
/// `profile.avatar.remove` (docs/protocol.md, "Photos and avatars"), and the photo routes over HTTP (docs/photos.md):
/// uploads, downloads and tus (`session` routes: tokens checked before bodies, bodies into upload slots;
/// `PhotoService`).
/// Each op handler decodes, asks `PhotoLibraryService` (one transaction), delivers its events after the commit
/// (`profile.updated` to my devices, friends and active followers; `moment.deleted` for a moment left without
/// photos to the moment's audience) and replies.
struct PhotosFeature: Feature {
    static let migrations: [Migration] = [.v0013Photos]

    let service: PhotoLibraryService

    init(context: ProtocolServices) {
        service = PhotoLibraryService(db: context.pool)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(PhotosAccountData.deletionSteps)
        let service = self.service
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
}
