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
import SwitchboardTransport

/// Accounts and sessions: `register`, `login`, `authenticate`, `logout`, `ping`, `sessions.*`, `profile.*`.
/// Owns the connection's move from anonymous to authenticated (`ProtocolApplication.authenticated`).
struct IdentityFeature: Feature {
    static let migrations: [Migration] = [.v0001AccountsAndFriends]

    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.add(IdentityAccountData.deletionSteps)
        registry.add(IdentityAccountData.profileSection)
        registry.add(IdentityAccountData.sessionsSection)
        registry.operations.register(Ops.Register.self) { context, p in
            let s = context.snapshot
            context.connection.authenticating = true
            context.run({ () async throws(ServiceError) -> SessionCredentials in
                if let refused = s.services.discovery.register(address: s.address, now: EventLoop.now()) { throw refused }
                return SessionCredentials(
                    try await s.services.accounts.register(
                        phone: p.phone, password: p.password, displayName: p.displayName, device: p.device, handle: p.handle))
            }, then: Self.becomeAuthenticated)
        }
        registry.operations.register(Ops.Login.self) { context, p in
            let s = context.snapshot
            context.connection.authenticating = true
            context.run({ () async throws(ServiceError) -> SessionCredentials in
                SessionCredentials(
                    try await s.services.accounts.login(
                        phone: p.phone, password: p.password, device: p.device, address: s.address, now: EventLoop.now()))
            }, then: Self.becomeAuthenticated)
        }
        registry.operations.register(Ops.Authenticate.self) { context, p in
            let accounts = context.services.accounts
            context.connection.authenticating = true
            context.run({ () async throws(ServiceError) -> AuthenticateResult in
                let (identity, profile) = try await accounts.authenticate(token: p.token)
                return AuthenticateResult(userId: identity.userId, sessionId: identity.sessionId, profile: UserProfile(profile))
            }, then: { app, r in
                if p.resume == true { app.messaging.holding = true }
                app.authenticated(Identity(userId: r.userId, sessionId: r.sessionId))
            })
        }
        registry.operations.register(Ops.Ping.self) { context, _ in context.reply(Empty()) }
        registry.operations.register(Ops.Logout.self) { context, _ in
            let identity = context.user
            let accounts = context.services.accounts
            let deliveries = context.services.deliveries
            context.run({ () async throws(ServiceError) -> Empty in
                _ = try await accounts.revoke(sessionId: identity.sessionId, of: identity.userId)
                return Empty()
            }, then: { app, _ in
                // After the reply (queued next on this loop): close with 1000.
                LoopBound(app).execute { $0.port.closeWebSocket(code: 1000, reason: "logged out") }
                // Other connections of the same session (same token) are revoked too.
                deliveries.revoke(sessionId: identity.sessionId, userId: identity.userId)
            })
        }
        registry.operations.register(Ops.SessionsList.self) { context, _ in
            let identity = context.user
            let accounts = context.services.accounts
            context.run { () async throws(ServiceError) -> SessionsListResult in
                SessionsListResult(sessions: try await accounts.sessions(of: identity).map(DeviceSession.init))
            }
        }
        registry.operations.register(Ops.SessionsRevoke.self) { s, p async throws(ServiceError) -> Empty in
            guard try await s.services.accounts.revoke(sessionId: p.sessionId, of: s.userId) else {
                throw ServiceError(.notFound, "no such active session of yours")
            }
            s.services.deliveries.revoke(sessionId: p.sessionId, userId: s.userId)
            return Empty()
        }
        registry.operations.register(Ops.ProfileGet.self) { s, p async throws(ServiceError) -> ProfileResult in
            var userId = p.userId ?? s.userId
            if p.userId == nil, let handle = p.handle {
                // By handle (Social): one answer for "no such handle" and "not visible to you".
                let found: Int64?
                do {
                    found = try await s.services.accounts.pool.withConnection { db in try SocialGraphRepository.userId(db, handle: handle) }
                } catch { throw ServiceError.from(error) }
                guard let found else { throw ServiceError(.notFound, "no such user") }
                userId = found
            }
            return ProfileResult(profile: UserProfile(try await s.services.accounts.profile(of: userId, viewer: s.userId)))
        }
        registry.operations.register(Ops.ProfileUpdate.self) { s, p async throws(ServiceError) -> ProfileResult in
            let me = s.userId
            // This node's time so far is recorded in the zone it was spent in (other nodes' within a checkpoint).
            if let zone = p.timeZone, (try? AccountService.validTimeZone(zone)) != nil { await s.services.activeHours.checkpoint(user: me) }
            let (profile, approved) = try await s.services.accounts.updateProfile(
                of: me, displayName: p.displayName, timeZone: p.timeZone, locale: p.locale,
                social: SocialProfileChange(bio: p.bio, protected: p.protected, dmPolicy: p.dmPolicy))
            // Turning `protected` off approved every pending request (Social).
            for follower in approved { FollowsFeature.followChanged(s, follower: follower, followee: me, state: .active) }
            guard p.displayName != nil else { return ProfileResult(profile: UserProfile(profile)) }
            s.services.renamed(me, profile.displayName)
            let friendIds = try await s.services.friends.friends(of: me).map(\.userId)
            // Without the phone number.
            let event = ServerEvent.ProfileUpdated(profile: UserProfile(userId: profile.userId, displayName: profile.displayName, handle: profile.handle))
            s.services.deliveries.push(
                PushEvent(users: friendIds + [me], bytes: ProtocolCodec.encodeEvent(event)))
            return ProfileResult(profile: UserProfile(profile))
        }
    }

    static let becomeAuthenticated: @Sendable (ProtocolApplication, SessionCredentials) -> Void = { app, c in
        app.authenticated(Identity(userId: c.userId, sessionId: c.sessionId))
    }
}

// The store's records as the wire's types (same fields; `WireCompatibilityTests` compares their encodings).

extension UserProfile {
    init(_ p: Profile) {
        self.init(
            userId: p.userId, displayName: p.displayName, phone: p.phone, role: p.role, timeZone: p.timeZone, locale: p.locale, handle: p.handle,
            bio: p.bio, protected: p.protected, dmPolicy: p.dmPolicy, stats: p.stats, relationship: p.relationship, avatar: p.avatar)
    }
}

extension UserSummary {
    init(_ p: Profile) { self.init(userId: p.userId, displayName: p.displayName) }
    init(_ f: Friend) { self.init(userId: f.userId, displayName: f.displayName, avatarPhotoId: f.avatarPhotoId) }
}

extension DeviceSession {
    init(_ s: SessionInfo) {
        self.init(sessionId: s.sessionId, device: s.device, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, current: s.current)
    }
}

extension SessionCredentials {
    init(_ c: Credentials) { self.init(userId: c.userId, sessionId: c.sessionId, sessionToken: c.sessionToken) }
}
