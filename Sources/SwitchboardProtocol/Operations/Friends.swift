//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Friends and contact discovery (docs/protocol.md, "Friends").

extension Ops {
    /// The friend ops.
    public static let friends: [any ProtocolOperation.Type] = [
        FriendsRequest.self, FriendsAccept.self, FriendsDecline.self, FriendsCancel.self, FriendsRemove.self,
        FriendsList.self, FriendsRequests.self, ContactsMatch.self,
    ]

    /// `friends.request {phone | user_id}` -> `{request}` or `{friend}`.
    public enum FriendsRequest: ProtocolOperation {
        public static let name = "friends.request"
        public static let stringParameters: [String: StringParameter] = ["phone": .lookup]
        public static let stateChanging = true
        public static let idempotent = false
        /// Parameters of `friends.request`: exactly one of `phone` and `user_id`.
        public struct Parameters: Codable, Sendable, Equatable {
            /// The other user's phone number, in any accepted format.
            public var phone: String?
            /// The other user's id.
            public var userId: Int64?

            public init(phone: String) {
                self.phone = phone
                self.userId = nil
            }

            public init(userId: Int64) {
                self.phone = nil
                self.userId = userId
            }

            private enum CodingKeys: String, CodingKey { case phone, userId }

            /// Decodes the parameters; giving both fields or neither is `bad_request`.
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                phone = try c.decodeIfPresent(String.self, forKey: .phone)
                userId = try c.decodeIfPresent(Int64.self, forKey: .userId)
                guard (phone == nil) != (userId == nil) else {
                    throw ParameterRule.violated("give exactly one of phone and user_id")
                }
            }
        }
        public typealias Result = FriendsRequestResult
    }

    /// `friends.accept {request_id}` -> `{friend}`.
    public enum FriendsAccept: ProtocolOperation {
        public static let name = "friends.accept"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = FriendRequestIDParameters
        public typealias Result = FriendResult
    }

    /// `friends.decline {request_id}` -> `{}`.
    public enum FriendsDecline: ProtocolOperation {
        public static let name = "friends.decline"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = FriendRequestIDParameters
        public typealias Result = Empty
    }

    /// `friends.cancel {request_id}` -> `{}`.
    public enum FriendsCancel: ProtocolOperation {
        public static let name = "friends.cancel"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = FriendRequestIDParameters
        public typealias Result = Empty
    }

    /// `friends.remove {user_id}` -> `{}`.
    public enum FriendsRemove: ProtocolOperation {
        public static let name = "friends.remove"
        public static let stateChanging = true
        public static let idempotent = false
        /// Parameters of `friends.remove`.
        public struct Parameters: Codable, Sendable, Equatable {
            /// The friend to remove.
            public var userId: Int64
            public init(userId: Int64) { self.userId = userId }
        }
        public typealias Result = Empty
    }

    /// `friends.list {}` -> `{friends}`.
    public enum FriendsList: ProtocolOperation {
        public static let name = "friends.list"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = FriendsListResult
    }

    /// `friends.requests {}` -> `{incoming, outgoing}`.
    public enum FriendsRequests: ProtocolOperation {
        public static let name = "friends.requests"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = FriendsRequestsResult
    }

    /// `contacts.match {phones}` -> `{matches}`.
    public enum ContactsMatch: ProtocolOperation {
        public static let name = "contacts.match"
        public static let stringParameters: [String: StringParameter] = ["phones": .lookup]
        public static let stateChanging = false
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.discovery
        /// Parameters of `contacts.match`.
        public struct Parameters: Codable, Sendable, Equatable {
            /// Phone numbers in any accepted format (at most 500 by default; invalid ones are skipped).
            public var phones: [String]
            public init(phones: [String]) { self.phones = phones }
        }
        public typealias Result = ContactsMatchResult
    }
}

/// Parameters of `friends.accept`, `friends.decline` and `friends.cancel`.
public struct FriendRequestIDParameters: Codable, Sendable, Equatable {
    /// The pending request.
    public var requestId: Int64
    public init(requestId: Int64) { self.requestId = requestId }
}
