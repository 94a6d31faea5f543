//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol
import Testing

/// The issue 19 wire types: snake_case keys, the new optional fields omitted when absent (older clients and the
/// existing examples see the same JSON), and round trips.
@Suite struct MomentsWireTests {
    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func optionalPhotoFieldsAreOmittedWhenAbsentAndPresentWhenSet() throws {
        let photo = Photo(
            photoId: 7, width: 4032, height: 3024, color: "#a3b1c2", hasAlpha: false,
            createdAt: "2026-11-25T02:00:00.000Z")
        let plain = SocialUser(userId: 1, displayName: "Ann", handle: nil, protected: false)
        let user = try object(
            ProtocolCodec.encodeEvent(
                "x", LiveEvents.PostNew(post: SocialPost(postId: 1, seq: 1, author: plain, text: "hi", createdAt: "t")))
        )
        let post = try #require(user["post"] as? [String: Any])
        #expect(post["photos"] == nil)
        #expect((post["author"] as? [String: Any])?["avatar_photo_id"] == nil)
        #expect((post["author"] as? [String: Any])?["handle"] is NSNull)

        var withPhotos = SocialPost(postId: 2, seq: 2, author: plain, text: "", createdAt: "t", photos: [photo])
        withPhotos.author.avatarPhotoId = 7
        let encoded = try object(ProtocolCodec.encodeEvent("x", LiveEvents.PostNew(post: withPhotos)))
        let p = try #require(encoded["post"] as? [String: Any])
        #expect((p["author"] as? [String: Any])?["avatar_photo_id"] as? Int == 7)
        let first = try #require((p["photos"] as? [[String: Any]])?.first)
        #expect(
            first["photo_id"] as? Int == 7 && first["has_alpha"] as? Bool == false
                && first["created_at"] as? String == photo.createdAt)

        let profile = try object(
            ProtocolCodec.encodeEvent(
                "profile.updated", ServerEvent.ProfileUpdated(profile: UserProfile(userId: 1, displayName: "Ann"))))
        #expect((profile["profile"] as? [String: Any])?["avatar"] == nil)
        let friend = try object(
            ProtocolCodec.encodeEvent("x", FriendsListResult(friends: [UserSummary(userId: 2, displayName: "Bob")])))
        #expect((friend["friends"] as? [[String: Any]])?.first?["avatar_photo_id"] == nil)
    }

    @Test func momentsAndTheirEventsRoundTrip() throws {
        let photo = Photo(photoId: 7, width: 512, height: 512, color: "#202020", hasAlpha: true, createdAt: "t0")
        let ann = SocialUser(userId: 1, displayName: "Ann", handle: "ann", protected: false, avatarPhotoId: 7)
        let moment = Moment(
            momentId: 3, owner: ann, caption: "Garden", photos: [photo], likeCount: 1, liked: true, recentLikers: [ann],
            createdAt: "t1")
        let bytes = ProtocolCodec.encodeEvent(MomentEvents.Created.name, MomentEvents.Created(moment: moment))
        let json = try object(bytes)
        #expect(json["ev"] as? String == "moment.created")
        let m = try #require(json["moment"] as? [String: Any])
        #expect(
            m["moment_id"] as? Int == 3 && m["like_count"] as? Int == 1 && (m["recent_likers"] as? [Any])?.count == 1)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(MomentEvents.Created.self, from: Data(bytes)).moment == moment)
        let liked = MomentEvents.Liked(momentId: 3, likeCount: 2, liked: false, user: ann)
        let likedBytes = ProtocolCodec.encodeEvent(MomentEvents.Liked.name, liked)
        #expect(try decoder.decode(MomentEvents.Liked.self, from: Data(likedBytes)) == liked)
        let page = Ops.MomentsFeed.Result(moments: [], nextBefore: nil)
        #expect(try object(ProtocolCodec.encodeEvent("x", page))["next_before"] is NSNull)
    }
}
