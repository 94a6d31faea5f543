//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A client request of protocol v1: one case per op, carrying that op's parameters.
///
/// Op names are dotted, the first part naming the area (`friends.accept`); later areas (`messages.*`,
/// `calls.*`, `voice.*`) add cases without changing these.
public enum ClientRequest: Sendable, Equatable, CustomStringConvertible {
    /// `register {phone, password, display_name, device}` -> `SessionCredentials`.
    case register(RegisterParams)
    /// `login {phone, password, device}` -> `SessionCredentials`.
    case login(LoginParams)
    /// `authenticate {token}` -> `AuthenticateResult`.
    case authenticate(AuthenticateParams)
    /// `logout {}` -> `{}`; the server then closes the connection with 1000.
    case logout
    /// `ping {}` -> `{}`.
    case ping
    /// `sessions.list {}` -> `SessionsListResult`.
    case sessionsList
    /// `sessions.revoke {session_id}` -> `{}`.
    case sessionsRevoke(SessionsRevokeParams)
    /// `profile.get {user_id?}` -> `ProfileResult`.
    case profileGet(ProfileGetParams)
    /// `profile.update {display_name}` -> `ProfileResult`.
    case profileUpdate(ProfileUpdateParams)
    /// `friends.request {phone | user_id}` -> `FriendsRequestResult`.
    case friendsRequest(FriendsRequestParams)
    /// `friends.accept {request_id}` -> `FriendResult`.
    case friendsAccept(FriendRequestIDParams)
    /// `friends.decline {request_id}` -> `{}`.
    case friendsDecline(FriendRequestIDParams)
    /// `friends.cancel {request_id}` -> `{}`.
    case friendsCancel(FriendRequestIDParams)
    /// `friends.remove {user_id}` -> `{}`.
    case friendsRemove(FriendsRemoveParams)
    /// `friends.list {}` -> `FriendsListResult`.
    case friendsList
    /// `friends.requests {}` -> `FriendsRequestsResult`.
    case friendsRequests
    /// `contacts.match {phones}` -> `ContactsMatchResult`.
    case contactsMatch(ContactsMatchParams)

    /// The op names of protocol v1.
    public enum Op: String, Sendable, CaseIterable {
        case register
        case login
        case authenticate
        case logout
        case ping
        case sessionsList = "sessions.list"
        case sessionsRevoke = "sessions.revoke"
        case profileGet = "profile.get"
        case profileUpdate = "profile.update"
        case friendsRequest = "friends.request"
        case friendsAccept = "friends.accept"
        case friendsDecline = "friends.decline"
        case friendsCancel = "friends.cancel"
        case friendsRemove = "friends.remove"
        case friendsList = "friends.list"
        case friendsRequests = "friends.requests"
        case contactsMatch = "contacts.match"

        /// The ops an unauthenticated connection may send (`register`, `login`, `authenticate`); every
        /// other op answers `not_authenticated` until then, and these answer `already_authenticated` after.
        public var isAuthenticationOp: Bool {
            switch self {
            case .register, .login, .authenticate: return true
            default: return false
            }
        }
    }

    /// This request's op.
    public var op: Op {
        switch self {
        case .register: return .register
        case .login: return .login
        case .authenticate: return .authenticate
        case .logout: return .logout
        case .ping: return .ping
        case .sessionsList: return .sessionsList
        case .sessionsRevoke: return .sessionsRevoke
        case .profileGet: return .profileGet
        case .profileUpdate: return .profileUpdate
        case .friendsRequest: return .friendsRequest
        case .friendsAccept: return .friendsAccept
        case .friendsDecline: return .friendsDecline
        case .friendsCancel: return .friendsCancel
        case .friendsRemove: return .friendsRemove
        case .friendsList: return .friendsList
        case .friendsRequests: return .friendsRequests
        case .contactsMatch: return .contactsMatch
        }
    }

    /// The op name and parameters, with passwords and tokens redacted (safe to log).
    public var description: String {
        switch self {
        case .register(let p):
            return
                "register(phone: \(p.phone), displayName: \(p.displayName), device: \(p.device), password: <redacted>)"
        case .login(let p): return "login(phone: \(p.phone), device: \(p.device), password: <redacted>)"
        case .authenticate: return "authenticate(token: <redacted>)"
        case .logout, .ping, .sessionsList, .friendsList, .friendsRequests: return op.rawValue
        case .sessionsRevoke(let p): return "sessions.revoke(sessionId: \(p.sessionId))"
        case .profileGet(let p): return "profile.get(userId: \(p.userId.map(String.init) ?? "self"))"
        case .profileUpdate(let p): return "profile.update(displayName: \(p.displayName ?? "-"), timeZone: \(p.timeZone ?? "-"), locale: \(p.locale ?? "-"))"
        case .friendsRequest(let p):
            return "friends.request(" + (p.phone.map { "phone: \($0)" } ?? p.userId.map { "userId: \($0)" } ?? "") + ")"
        case .friendsAccept(let p), .friendsDecline(let p), .friendsCancel(let p):
            return "\(op.rawValue)(requestId: \(p.requestId))"
        case .friendsRemove(let p): return "friends.remove(userId: \(p.userId))"
        case .contactsMatch(let p): return "contacts.match(\(p.phones.count) phones)"
        }
    }
}

// MARK: - Parameters

// The parameter types are the op declarations' (`Operations/Accounts.swift`, `Operations/Friends.swift`).
extension ClientRequest {
    public typealias RegisterParams = Ops.Register.Parameters
    public typealias LoginParams = Ops.Login.Parameters
    public typealias AuthenticateParams = Ops.Authenticate.Parameters
    public typealias SessionsRevokeParams = Ops.SessionsRevoke.Parameters
    public typealias ProfileGetParams = Ops.ProfileGet.Parameters
    public typealias ProfileUpdateParams = Ops.ProfileUpdate.Parameters
    public typealias FriendsRequestParams = Ops.FriendsRequest.Parameters
    public typealias FriendRequestIDParams = FriendRequestIDParameters
    public typealias FriendsRemoveParams = Ops.FriendsRemove.Parameters
    public typealias ContactsMatchParams = Ops.ContactsMatch.Parameters
}

// MARK: - Coding

extension ClientRequest {
    /// Decodes the parameters of `op` from the request object (keys already converted to camelCase).
    static func decode(_ op: Op, from decoder: any Decoder) throws -> ClientRequest {
        switch op {
        case .register: return .register(try RegisterParams(from: decoder))
        case .login: return .login(try LoginParams(from: decoder))
        case .authenticate: return .authenticate(try AuthenticateParams(from: decoder))
        case .logout: return .logout
        case .ping: return .ping
        case .sessionsList: return .sessionsList
        case .sessionsRevoke: return .sessionsRevoke(try SessionsRevokeParams(from: decoder))
        case .profileGet: return .profileGet(try ProfileGetParams(from: decoder))
        case .profileUpdate: return .profileUpdate(try ProfileUpdateParams(from: decoder))
        case .friendsRequest:
            let p = try FriendsRequestParams(from: decoder)
            guard (p.phone == nil) != (p.userId == nil) else {
                throw ParameterRule.violated("give exactly one of phone and user_id")
            }
            return .friendsRequest(p)
        case .friendsAccept: return .friendsAccept(try FriendRequestIDParams(from: decoder))
        case .friendsDecline: return .friendsDecline(try FriendRequestIDParams(from: decoder))
        case .friendsCancel: return .friendsCancel(try FriendRequestIDParams(from: decoder))
        case .friendsRemove: return .friendsRemove(try FriendsRemoveParams(from: decoder))
        case .friendsList: return .friendsList
        case .friendsRequests: return .friendsRequests
        case .contactsMatch: return .contactsMatch(try ContactsMatchParams(from: decoder))
        }
    }

    /// Encodes the parameters (not `id` and `op`) into `encoder`.
    func encodeParameters(to encoder: any Encoder) throws {
        switch self {
        case .register(let p): try p.encode(to: encoder)
        case .login(let p): try p.encode(to: encoder)
        case .authenticate(let p): try p.encode(to: encoder)
        case .logout, .ping, .sessionsList, .friendsList, .friendsRequests: break
        case .sessionsRevoke(let p): try p.encode(to: encoder)
        case .profileGet(let p): try p.encode(to: encoder)
        case .profileUpdate(let p): try p.encode(to: encoder)
        case .friendsRequest(let p): try p.encode(to: encoder)
        case .friendsAccept(let p), .friendsDecline(let p), .friendsCancel(let p): try p.encode(to: encoder)
        case .friendsRemove(let p): try p.encode(to: encoder)
        case .contactsMatch(let p): try p.encode(to: encoder)
        }
    }
}

/// A parameter rule beyond types (thrown while decoding, answered `bad_request` with the message).
enum ParameterRule: Error {
    /// The message says which rule.
    case violated(String)
}
