//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardProtocol

/// `Page<Item>` keeps the wire form of the result structs it replaced.
@Suite struct PageTests {
    static let user = SocialUser(userId: 7, displayName: "Ann", handle: nil, protected: false)

    func decoded<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(T.self, from: Data(json.utf8))
    }

    @Test func theListTakesTheItemsKeyAndTheLastPageSaysNull() throws {
        #expect(
            text(ProtocolCodec.encode(Ops.PhotosMine.Result(photos: [], nextBefore: nil)))
                == #"{"next_before":null,"photos":[]}"#)
        #expect(
            text(ProtocolCodec.encode(Ops.MomentsFeed.Result(moments: [], nextBefore: 9)))
                == #"{"moments":[],"next_before":9}"#)
        let users = SocialUserPage(users: [Self.user], nextBefore: nil)
        #expect(
            text(ProtocolCodec.encode(users))
                == #"{"next_before":null,"users":[{"display_name":"Ann","handle":null,"protected":false,"#
                + #""user_id":7}]}"#)
        #expect(try decoded(SocialUserPage.self, text(ProtocolCodec.encode(users))) == users)
        #expect(try decoded(Ops.PostLikers.Result.self, #"{"users":[],"next_before":3}"#).nextBefore == 3)
        #expect(
            text(ProtocolCodec.encode(FollowRequestsResult(requests: [], nextBefore: 2)))
                == #"{"next_before":2,"requests":[]}"#)
        #expect(
            text(ProtocolCodec.encode(Ops.TimelineLikes.Result(posts: [], nextBefore: nil)))
                == #"{"next_before":null,"posts":[]}"#)
        #expect(
            text(ProtocolCodec.encode(Ops.CommunityPostsList.Result(posts: [], nextBefore: nil)))
                == #"{"next_before":null,"posts":[]}"#)
    }

    @Test func moderationPagesLeaveTheCursorOutAtTheEnd() throws {
        #expect(text(ProtocolCodec.encode(Ops.AdminReports.Result(reports: [], nextBefore: nil))) == #"{"reports":[]}"#)
        #expect(
            text(ProtocolCodec.encode(Ops.AdminReports.Result(reports: [], nextBefore: 4)))
                == #"{"next_before":4,"reports":[]}"#)
        #expect(text(ProtocolCodec.encode(Ops.AdminAudit.Result(entries: [], nextBefore: nil))) == #"{"entries":[]}"#)
        #expect(try decoded(Ops.AdminAudit.Result.self, #"{"entries":[]}"#) == .init(entries: [], nextBefore: nil))
    }

    @Test func theNamedAccessorsAreTheItems() {
        var page = SocialUserPage(users: [], nextBefore: 1)
        page.users.append(Self.user)
        #expect(page.items == [Self.user] && page.users == page.items)
        #expect(Page<Photo>([], nextBefore: nil) == Ops.PhotosMine.Result(photos: [], nextBefore: nil))
    }

    @Test func aPageWithoutItsListDoesNotDecode() {
        #expect(throws: DecodingError.self) { try decoded(SocialUserPage.self, #"{"posts":[],"next_before":null}"#) }
    }
}
