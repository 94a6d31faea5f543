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

/// `PhotoLibraryService` without sockets: only one's own photos are listed, deleted or made an avatar (anyone
/// else's is `noSuchPhoto`), and who hears what.
@Suite("Photo library service (the test database)")
struct PhotoLibraryServiceTests {
    @Test func ownPhotosOnlyAndTheirDeletionTellsTheMomentsAudienceAndTheAvatarsFollowers() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, fay) = (try await db.user("ann"), try await db.user("bob"), try await db.user("fay"))
        try await db.befriend(ann, bob)
        try await giveHandle(ann)
        try await giveHandle(fay)
        try await serviceFollow(fay, ann)
        let photos = PhotoLibraryService(db: try db.pool, live: RecordingPublisher())
        let (first, second) = (try await servicePhoto(owner: ann), try await servicePhoto(owner: ann))
        let bobs = try await servicePhoto(owner: bob)
        let page = try await photos.mine(user: ann, before: nil, limit: 1)
        #expect(page.photos.map(\.photoId) == [second])
        #expect(page.nextBefore == second)
        #expect(try await photos.mine(user: ann, before: second, limit: 1).photos.map(\.photoId) == [first])
        await #expect(throws: PhotoError.pageLimit(max: 100)) {
            _ = try await photos.mine(user: ann, before: nil, limit: 0)
        }
        let me = Caller(userId: ann)
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.delete(me, photoId: bobs) }
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.setAvatar(me, photoId: bobs) }
        // The avatar: my profile, told to me, my friends and my active followers.
        let (avatar, told) = try await photos.setAvatar(me, photoId: first)
        #expect(avatar.profile.avatar?.photoId == first)
        #expect(told.map(\.name) == ["profile.updated"])
        #expect(Set(try #require(told.first).users) == [ann, bob, fay])
        let shown = try #require(told.first?.event as? ServerEvent.ProfileUpdated)
        #expect(shown.profile.phone == nil)
        // A moment of the first photo only: deleting the photo deletes the moment and clears the avatar.
        let moment = try await MomentService(
            db: try db.pool, limits: MomentConfiguration(), posting: SharedRateLimiter(capacity: 5, refillPerSecond: 1),
            liking: SharedRateLimiter(capacity: 5, refillPerSecond: 1),
            clientIdRule: MessagingConfiguration().clientIdRule
        ).create(me, photoIds: [first], caption: nil, clientId: nil).0.moment.momentId
        let events = try await photos.delete(me, photoId: first)
        #expect(events.map(\.name) == ["moment.deleted", "profile.updated"])
        #expect(Set(events[0].users) == [ann, bob])
        #expect((events[0].event as? MomentEvents.Deleted)?.momentId == moment)
        #expect(Set(events[1].users) == [ann, bob, fay])
        #expect((events[1].event as? ServerEvent.ProfileUpdated)?.profile.avatar == nil)
        await #expect(throws: PhotoError.noSuchPhoto) { _ = try await photos.delete(me, photoId: first) }
        let (removed, _) = try await photos.setAvatar(me, photoId: nil)
        #expect(removed.profile.avatar == nil)
    }

    @Test func deletingAPhotoTellsTheLivePagesOfThePostsThatCarriedIt() async throws {
        let db = EngineTestDatabase.shared
        let ann = try await db.user("ann")
        try await giveHandle(ann)
        let live = RecordingPublisher()
        let posts = try postService(RecordingPublisher(), clock: ManualClock())
        let photos = PhotoLibraryService(db: try db.pool, live: live)
        let (first, second) = (try await servicePhoto(owner: ann), try await servicePhoto(owner: ann))
        let me = Caller(userId: ann)
        let both = try await posts.create(
            me, text: "two", replyTo: nil, voiceClipId: nil, photoIds: [first, second], clientId: nil
        ).post.postId
        let gone = try await posts.create(
            me, text: "gone", replyTo: nil, voiceClipId: nil, photoIds: [first], clientId: nil
        ).post.postId
        try await posts.delete(me, postId: gone)
        let other = try await servicePhoto(owner: ann)
        _ = try await photos.delete(me, photoId: other)
        #expect(live.changes.isEmpty, "a photo in no post tells no live page")
        _ = try await photos.delete(me, photoId: first)
        // Only the live post: a deleted one is gone from every page already.
        #expect(live.changes == ["photos(postId: \(both))"])
        #expect(try await posts.post(both, viewer: ann).post.photos.map(\.photoId) == [second])
    }
}
