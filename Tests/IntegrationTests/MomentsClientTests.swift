//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol
import SwitchboardServer
import Testing

@Suite("Moments and photos through the client library", .serialized)
struct MomentsClientTests {
    @Test func theClientCreatesReadsLikesAndSetsAnAvatarAndReadsTheMomentEvents() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let bobEvents = EventLog(bob)
        let annUser = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        try await befriend(ann, bob, bobUser)
        let first = Int64(try testPhoto(database, owner: Int(annUser.id)))
        let second = Int64(try testPhoto(database, owner: Int(annUser.id), width: 640, height: 480))

        let photos = try await ann.myPhotos(limit: 1)
        #expect(photos.photos.map(\.photoId) == [second] && photos.nextBefore == second)
        let moment = try await ann.createMoment(photoIds: [first, second], caption: " Tea ", clientId: "c-1")
        #expect(
            moment.caption == "Tea" && moment.photos.map(\.photoId) == [first, second]
                && moment.owner.userId == annUser.id)
        #expect(try await ann.createMoment(photoIds: [first, second], clientId: "c-1").momentId == moment.momentId)
        #expect(
            await bobEvents.wait { events in
                events.contains {
                    if case .other(let raw) = $0, case .created(let m) = MomentEvent(raw) {
                        return m.momentId == moment.momentId
                    } else {
                        return false
                    }
                }
            })
        #expect(try await bob.momentsFeed().moments.map(\.momentId) == [moment.momentId])
        let liked = try await bob.likeMoment(moment.momentId)
        #expect(liked.likeCount == 1 && liked.liked)
        #expect(try await ann.momentLikers(moment.momentId).likers.map(\.userId) == [bobUser.id])
        #expect(try await ann.moment(moment.momentId).recentLikers.map(\.userId) == [bobUser.id])
        #expect(try await bob.unlikeMoment(moment.momentId).likeCount == 0)

        let profile = try await ann.setAvatar(photoId: second)
        #expect(profile.avatar?.photoId == second && profile.avatar?.width == 640)
        #expect(
            await bobEvents.wait { events in
                events.contains {
                    if case .account(.profileUpdated(let e)) = $0 {
                        return e.profile.avatar?.photoId == second
                    } else {
                        return false
                    }
                }
            })
        #expect(try await ann.removeAvatar().avatar == nil)

        do {
            _ = try await bob.moment(moment.momentId + 1_000_000)
            Issue.record("a missing moment was found")
        } catch {
            #expect(error.serverCode == .notFound)
        }
        try await ann.deletePhoto(first)
        #expect(try await bob.moment(moment.momentId).photos.map(\.photoId) == [second])
        try await ann.deleteMoment(moment.momentId)
        #expect(
            await bobEvents.wait { events in
                events.contains {
                    if case .other(let raw) = $0, case .deleted(let id, _) = MomentEvent(raw) {
                        return id == moment.momentId
                    } else {
                        return false
                    }
                }
            })
        #expect(try await bob.momentsFeed().moments.isEmpty)
        await ann.close()
        await bob.close()
    }
}
