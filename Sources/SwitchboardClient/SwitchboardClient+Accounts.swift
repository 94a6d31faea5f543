//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

// Typed methods for the account, session, profile and friend ops of protocol v1. Each throws
// `SwitchboardClientError` (`.server` carries the op's error codes, listed in docs/protocol.md).
extension SwitchboardClient {
    // MARK: Sessions

    /// `register`: creates an account and authenticates the connection; the client keeps the session token
    /// for re-authentication after reconnects. With `handle` the account takes that social handle at once
    /// (`handle_taken`, `bad_request` when invalid or reserved: then no account is made).
    @discardableResult
    public func register(
        phone: String, password: String, displayName: String, device: String, handle: String? = nil,
        code: String? = nil
    ) async throws(SwitchboardClientError) -> SessionCredentials {
        try await send(
            Ops.Register.self,
            .init(
                phone: phone, password: password, displayName: displayName, device: device, handle: handle, code: code))
    }

    /// `verification.start`: asks the server to send a one-time code to `phone` for `register` or `reset`. The
    /// answer is the same whether or not a code was sent (the server tells nobody whether a number is registered).
    public func startVerification(phone: String, purpose: CodePurpose) async throws(SwitchboardClientError) {
        _ = try await send(Ops.VerificationStart.self, .init(phone: phone, purpose: purpose.rawValue))
    }

    /// `password.reset`: a new password with the code sent for purpose `reset`; the account's other sessions are
    /// revoked and this connection is authenticated with a new one (the client keeps the token, as after `login`).
    @discardableResult
    public func resetPassword(phone: String, code: String, newPassword: String, device: String)
        async throws(SwitchboardClientError) -> SessionCredentials
    {
        try await send(
            Ops.PasswordReset.self, .init(phone: phone, code: code, password: newPassword, device: device))
    }

    /// `login`: authenticates the connection with a phone number and password; the client keeps the token.
    @discardableResult
    public func login(phone: String, password: String, device: String) async throws(SwitchboardClientError)
        -> SessionCredentials
    {
        try await send(Ops.Login.self, .init(phone: phone, password: password, device: device))
    }

    /// `authenticate`: authenticates the connection with a stored session token; the client keeps it.
    /// The message stream starts now (see `ClientConfiguration.establishBaseline`).
    @discardableResult
    public func authenticate(token: String) async throws(SwitchboardClientError) -> AuthenticateResult {
        try await send(Ops.Authenticate.self, .init(token: token))
    }

    /// `authenticate {token, resume: true}` and, right behind it, `sync {since: points}`: continues the
    /// message stream of an earlier process from its saved `resumePoints` (conversations not listed come
    /// from the joining). The catch-up arrives as `message` events, then `.resumed`.
    @discardableResult
    public func authenticate(token: String, resumeFrom points: [Int64: Int64], timeout: Double? = nil)
        async throws(SwitchboardClientError) -> AuthenticateResult
    {
        try await submitAuthenticateAndResume(token: token, points: points, timeout: timeout)
            .decode(AuthenticateResult.self)
    }

    /// `logout`: revokes the session; the server closes the connection and the client stops
    /// (`ConnectionState.closed(.loggedOut)`).
    public func logout() async throws(SwitchboardClientError) {
        _ = try await send(Ops.Logout.self, Empty())
    }

    /// `ping`: a round trip.
    public func ping(timeout: Double? = nil) async throws(SwitchboardClientError) {
        _ = try await send(Ops.Ping.self, Empty(), timeout: timeout)
    }

    /// `sessions.list`: the user's sessions, newest first.
    public func sessions() async throws(SwitchboardClientError) -> [DeviceSession] {
        try await send(Ops.SessionsList.self, Empty()).sessions
    }

    /// `sessions.revoke`: ends one of the user's sessions (its connections get close 4001).
    public func revokeSession(_ sessionId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.SessionsRevoke.self, .init(sessionId: sessionId))
    }

    // MARK: Profiles

    /// `profile.get`: one's own profile (nil) or a friend's.
    public func profile(userId: Int64? = nil) async throws(SwitchboardClientError) -> UserProfile {
        try await send(Ops.ProfileGet.self, .init(userId: userId)).profile
    }

    /// `profile.update`: a new display name.
    @discardableResult
    public func updateProfile(displayName: String) async throws(SwitchboardClientError) -> UserProfile {
        try await send(Ops.ProfileUpdate.self, .init(displayName: displayName)).profile
    }

    // MARK: Friends

    /// `friends.request` by phone number: a pending request, or a friend when it was accepted at once.
    public func requestFriend(phone: String) async throws(SwitchboardClientError) -> FriendsRequestResult {
        try await send(Ops.FriendsRequest.self, .init(phone: phone))
    }

    /// `friends.request` by user id.
    public func requestFriend(userId: Int64) async throws(SwitchboardClientError) -> FriendsRequestResult {
        try await send(Ops.FriendsRequest.self, .init(userId: userId))
    }

    /// `friends.accept`.
    @discardableResult
    public func acceptFriendRequest(_ requestId: Int64) async throws(SwitchboardClientError) -> UserSummary {
        try await send(Ops.FriendsAccept.self, .init(requestId: requestId)).friend
    }

    /// `friends.decline`.
    public func declineFriendRequest(_ requestId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.FriendsDecline.self, .init(requestId: requestId))
    }

    /// `friends.cancel`.
    public func cancelFriendRequest(_ requestId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.FriendsCancel.self, .init(requestId: requestId))
    }

    /// `friends.remove`.
    public func removeFriend(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.FriendsRemove.self, .init(userId: userId))
    }

    /// `friends.list`: by display name, then id.
    public func friends() async throws(SwitchboardClientError) -> [UserSummary] {
        try await send(Ops.FriendsList.self, Empty()).friends
    }

    /// `friends.requests`: incoming and outgoing pending requests.
    public func friendRequests() async throws(SwitchboardClientError) -> FriendsRequestsResult {
        try await send(Ops.FriendsRequests.self, Empty())
    }

    /// `contacts.match`: which of these numbers are registered.
    public func matchContacts(_ phones: [String]) async throws(SwitchboardClientError) -> [RegisteredContact] {
        try await send(Ops.ContactsMatch.self, .init(phones: phones)).matches
    }
}
