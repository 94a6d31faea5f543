//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

// Photos, avatars and moments (docs/protocol.md, "Photos and avatars" and "Moments"). The photo bytes go over HTTP
// (`POST /photos`); these ops list, delete and reference them. Results are the protocol's own types (`Photo`,
// `Moment`, `UserProfile`); moment events arrive on `events` as `.other(RawEvent)`: `MomentEvent(raw)` reads them.
//
// Resending after a lost reply: reads, likes and the avatar ops are resent (idempotent); `moments.create` always
// carries a `client_id` (a fresh UUID unless given), so a resend returns the moment already made.

extension SwitchboardClient {
    /// `photos.mine {before?, limit?}`: my photos, newest first.
    public func myPhotos(before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> Ops.PhotosMine.Result
    {
        try await send(Ops.PhotosMine.self, .init(before: before, limit: limit))
    }

    /// `photos.delete {photo_id}`: deletes one of my photos for real (from moments, posts and my avatar too).
    /// - Throws: `.server(ServerError)`: `not_found`.
    public func deletePhoto(_ photoId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.PhotosDelete.self, PhotoIdParameters(photoId: photoId))
    }

    /// `profile.avatar.set {photo_id}`: my profile, with `avatar`.
    /// - Throws: `.server(ServerError)`: `not_found` (not my photo).
    public func setAvatar(photoId: Int64) async throws(SwitchboardClientError) -> UserProfile {
        try await send(Ops.ProfileAvatarSet.self, PhotoIdParameters(photoId: photoId)).profile
    }

    /// `profile.avatar.remove {}`: my profile, without `avatar`.
    public func removeAvatar() async throws(SwitchboardClientError) -> UserProfile {
        try await send(Ops.ProfileAvatarRemove.self, Empty()).profile
    }

    /// `moments.create {photo_ids, caption?, client_id}`: 1-9 of my photos and a caption, shared with my friends.
    /// - Throws: `.server(ServerError)`: `bad_request`, `not_found` (a photo that is not mine), `rate_limited`.
    public func createMoment(
        photoIds: [Int64], caption: String? = nil, clientId: String? = nil
    ) async throws(SwitchboardClientError) -> Moment {
        try await send(
            Ops.MomentsCreate.self,
            .init(photoIds: photoIds, caption: caption, clientId: clientId ?? UUID().uuidString), resendable: true
        ).moment
    }

    /// `moments.feed {before?, limit?}`: mine and my friends', newest first (`nextBefore` for the next page).
    public func momentsFeed(before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> Ops.MomentsFeed.Result
    {
        try await send(Ops.MomentsFeed.self, .init(before: before, limit: limit))
    }

    /// `moments.get {moment_id}`.
    /// - Throws: `.server(ServerError)`: `not_found`.
    public func moment(_ momentId: Int64) async throws(SwitchboardClientError) -> Moment {
        try await send(Ops.MomentsGet.self, MomentIdParameters(momentId: momentId)).moment
    }

    /// `moments.delete {moment_id}` (mine).
    /// - Throws: `.server(ServerError)`: `not_found`.
    public func deleteMoment(_ momentId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.MomentsDelete.self, MomentIdParameters(momentId: momentId))
    }

    /// `moments.like {moment_id}`.
    public func likeMoment(_ momentId: Int64) async throws(SwitchboardClientError) -> MomentLikeResult {
        try await send(Ops.MomentsLike.self, MomentIdParameters(momentId: momentId))
    }

    /// `moments.unlike {moment_id}`.
    public func unlikeMoment(_ momentId: Int64) async throws(SwitchboardClientError) -> MomentLikeResult {
        try await send(Ops.MomentsUnlike.self, MomentIdParameters(momentId: momentId))
    }

    /// `moments.likers {moment_id, before?, limit?}`: newest like first; `before` is the previous page's `nextBefore`.
    public func momentLikers(
        _ momentId: Int64, before: String? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Ops.MomentsLikers.Result {
        try await send(Ops.MomentsLikers.self, .init(momentId: momentId, before: before, limit: limit))
    }
}

/// A moment event (`moment.created`, `moment.deleted`, `moment.liked`), read from a raw event.
public enum MomentEvent: Sendable, Equatable {
    case created(Moment)
    case deleted(momentId: Int64, ownerId: Int64)
    case liked(MomentEvents.Liked)

    /// The moment event a raw event is, or nil (another event, or one that does not decode).
    public init?(_ raw: RawEvent) {
        do {
            switch raw.name {
            case MomentEvents.Created.name: self = .created(try raw.decode(MomentEvents.Created.self).moment)
            case MomentEvents.Deleted.name:
                let e = try raw.decode(MomentEvents.Deleted.self)
                self = .deleted(momentId: e.momentId, ownerId: e.ownerId)
            case MomentEvents.Liked.name: self = .liked(try raw.decode(MomentEvents.Liked.self))
            default: return nil
            }
        } catch {
            return nil
        }
    }
}
