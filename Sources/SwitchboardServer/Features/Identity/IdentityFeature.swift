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

/// Accounts and sessions: `register`, `login`, `authenticate`, `logout`, `ping`, `sessions.*`, `profile.*`,
/// `verification.start`, `password.reset` (docs/protocol.md "Accounts", "Phone verification"). Each handler
/// decodes, asks `IdentityService` (the rules, one transaction, the events), replies, and delivers the service's
/// events after the commit. Owns the connection's move from anonymous to authenticated
/// (`ProtocolApplication.authenticated`) and the hand-offs around a session or a profile change: closing revoked
/// sessions (also those a password reset ended), active hours' checkpoint before a zone change, the names presence
/// and calls keep, follow requests a profile change approved.
struct IdentityFeature: Feature {
    static let migrations: [Migration] = [.v0001AccountsAndFriends, .v0018PhoneVerifications]

    /// Shared with the features that authenticate bearer tokens or read profiles (`ProtocolServices.accounts`).
    let service: IdentityService
    /// Concurrent Argon2id hashes (`--password-hashers`), for the configuration group.
    let passwordHashers: Int

    init(context: ProtocolServices) {
        service = context.accounts
        passwordHashers = context.configuration.passwordHashers
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(IdentityAccountData.deletionSteps)
        registry.add(IdentityAccountData.profileSection)
        registry.add(IdentityAccountData.sessionsSection)
        let login = service.loginLimits
        let discovery = service.registrationLimits
        registry.configuration.append(
            ConfigurationGroup(
                feature: "identity",
                values: [
                    ("default-country-code", service.defaultCountryCode ?? ""),
                    ("login-burst-per-phone", "\(login.perPhoneBurst)"),
                    ("login-interval-per-phone", "\(login.perPhoneIntervalSeconds)"),
                    ("login-burst-per-address", "\(login.perAddressBurst)"),
                    ("login-interval-per-address", "\(login.perAddressIntervalSeconds)"),
                    ("password-hashers", "\(passwordHashers)"),
                    ("register-burst-per-address", "\(discovery.registerBurstPerAddress)"),
                    ("register-interval-per-address", "\(discovery.registerIntervalPerAddress)"),
                ]))
        let verification = service.verifier.settings
        registry.configuration.append(
            ConfigurationGroup(
                feature: "phone verification",
                values: [
                    ("phone-verification", verification.mode.rawValue),
                    ("sms-gateway", verification.gateway.kind.rawValue),
                    ("verification-code-ttl", "\(verification.codeTTL)"),
                    ("verification-attempts-per-code", "\(verification.attemptsPerCode)"),
                    ("verification-burst-per-phone", "\(verification.sendsBurstPerPhone)"),
                    ("verification-interval-per-phone", "\(verification.sendsIntervalPerPhone)"),
                    ("verification-burst-per-address", "\(verification.sendsBurstPerAddress)"),
                    ("verification-interval-per-address", "\(verification.sendsIntervalPerAddress)"),
                ]))
        registerSessions(in: &registry)
        registerProfiles(in: &registry)
    }

    /// `register`, `login`, `authenticate`, `ping`, `logout`, `sessions.*`.
    private func registerSessions(in registry: inout FeatureRegistry) {
        let service = self.service
        registry.operations.register(Ops.Register.self) { context, p in
            let address = context.snapshot.address
            context.connection.authenticating = true
            let sweeps = context.services.registry.closeSweeps
            context.run(
                { () async throws(ServiceError) -> SessionCredentials in
                    do throws(IdentityError) {
                        return try await service.register(
                            phone: p.phone, password: p.password, displayName: p.displayName, device: p.device,
                            handle: p.handle, code: p.code, address: address)
                    } catch { throw error.wire }
                }, then: { app, c in Self.becomeAuthenticated(app, c, sweeps: sweeps, service: service) })
        }
        registry.operations.register(Ops.Login.self) { context, p in
            let address = context.snapshot.address
            context.connection.authenticating = true
            let sweeps = context.services.registry.closeSweeps
            context.run(
                { () async throws(ServiceError) -> SessionCredentials in
                    do throws(IdentityError) {
                        return try await service.login(
                            phone: p.phone, password: p.password, device: p.device, address: address)
                    } catch { throw error.wire }
                }, then: { app, c in Self.becomeAuthenticated(app, c, sweeps: sweeps, service: service) })
        }
        registry.operations.register(Ops.VerificationStart.self) { s, p async throws(IdentityError) -> Empty in
            try await service.startVerification(phone: p.phone, purpose: p.purpose, address: s.address)
            return Empty()
        }
        registry.operations.register(Ops.PasswordReset.self) { context, p in
            context.connection.authenticating = true
            let sweeps = context.services.registry.closeSweeps
            let deliveries = context.services.deliveries
            context.run(
                { () async throws(ServiceError) -> SessionCredentials in
                    do throws(IdentityError) {
                        let (credentials, revoked) = try await service.resetPassword(
                            phone: p.phone, code: p.code, password: p.password, device: p.device)
                        // Every connection of the account's other sessions, on every node.
                        for sessionId in revoked {
                            deliveries.revoke(sessionId: sessionId, userId: credentials.userId)
                        }
                        return credentials
                    } catch { throw error.wire }
                }, then: { app, c in Self.becomeAuthenticated(app, c, sweeps: sweeps, service: service) })
        }
        registry.operations.register(Ops.Authenticate.self) { context, p in
            context.connection.authenticating = true
            let sweeps = context.services.registry.closeSweeps
            let checked = context.services.configuration.authenticationCheckedForTesting
            context.run(
                { () async throws(ServiceError) -> AuthenticateResult in
                    do throws(IdentityError) {
                        let (identity, profile) = try await service.authenticate(token: p.token)
                        await checked?()
                        return AuthenticateResult(
                            userId: identity.userId, sessionId: identity.sessionId, profile: UserProfile(profile))
                    } catch { throw error.wire }
                },
                then: { app, r in
                    if p.resume == true { app.messaging.holding = true }
                    Self.becomeAuthenticated(
                        app, Identity(userId: r.userId, sessionId: r.sessionId), sweeps: sweeps, service: service)
                })
        }
        registry.operations.register(Ops.Ping.self) { context, _ in context.reply(Empty()) }
        registry.operations.register(Ops.Logout.self) { context, _ in
            let identity = context.user
            let caller = Caller(userId: identity.userId, sessionId: identity.sessionId)
            let deliveries = context.services.deliveries
            context.run(
                { () async throws(ServiceError) -> Empty in
                    do throws(IdentityError) { try await service.logout(caller) } catch { throw error.wire }
                    return Empty()
                },
                then: { app, _ in
                    // After the reply (queued next on this loop): close with 1000.
                    LoopBound(app).execute { $0.port.closeWebSocket(code: 1000, reason: "logged out") }
                    // Other connections of the same session (same token) are revoked too.
                    deliveries.revoke(sessionId: identity.sessionId, userId: identity.userId)
                })
        }
        registry.operations.register(Ops.SessionsList.self) { s, _ async throws(IdentityError) in
            try await service.sessions(s.caller)
        }
        registry.operations.register(Ops.SessionsRevoke.self) { s, p async throws(IdentityError) -> Empty in
            try await service.revoke(s.caller, sessionId: p.sessionId)
            // Every connection of that session, on every node.
            s.services.deliveries.revoke(sessionId: p.sessionId, userId: s.userId)
            return Empty()
        }
    }

    /// `profile.get`, `profile.update`.
    private func registerProfiles(in registry: inout FeatureRegistry) {
        let service = self.service
        registry.operations.register(Ops.ProfileGet.self) { s, p async throws(IdentityError) in
            try await service.profile(viewer: s.userId, userId: p.userId, handle: p.handle)
        }
        registry.operations.register(Ops.ProfileUpdate.self) { s, p async throws(IdentityError) -> ProfileResult in
            let me = s.userId
            // This node's time so far is recorded in the zone it was spent in (other nodes' within a checkpoint).
            if let zone = p.timeZone, (try? IdentityRules.timeZone(zone)) != nil {
                await s.services.activeHours.checkpoint(user: me)
            }
            let (result, approved, events) = try await service.updateProfile(
                s.caller, displayName: p.displayName, timeZone: p.timeZone, locale: p.locale,
                social: SocialProfileChange(bio: p.bio, protected: p.protected, dmPolicy: p.dmPolicy))
            // Turning `protected` off approved every pending request (Social).
            for follower in approved {
                FollowsFeature.followChanged(s, follower: follower, followee: me, state: .active)
            }
            if p.displayName != nil { s.services.renamed(me, result.profile.displayName) }
            s.deliver(events)
            return result
        }
    }

    /// Moves the connection to authenticated once `register`, `login` or `authenticate` answered, and closes it
    /// again if a close sweep of its account or session may have missed it (`sweeps`: the registry's count of
    /// close sweeps read before the database check).
    ///
    /// **A sweep during an authentication.** A revocation, a suspension or a deletion commits, then closes the
    /// connections the registry has (`Deliveries`: the sweep W, after the commit S). An authentication checks the
    /// database (C: session live, account neither deleted nor suspended), then registers the connection on its loop
    /// (R, `SessionRegistry.add`). S is either before C's snapshot (C sees it and refuses) or after it; in the second
    /// case W comes after C, and either W is after R (W finds the connection and closes it) or W is between C and R
    /// (W misses it: the race). Counting sweeps tells the last case apart without a database read in the common one:
    /// the count is read before C and again after R, and W bumps it in the critical section where it looks the
    /// registry up. Unchanged, no W ran between C and R, so none missed this connection. Changed (any sweep, of any
    /// account, on this node: rare), the check is made again (C2, after R): if S committed before C2, C2 sees it and
    /// the connection is closed as W would have closed it; if not, W comes after S, so after C2 and R, and finds it.
    /// A C2 that fails (the database unavailable) closes with 1012: the client authenticates again. In a cluster
    /// each node sweeps its own connections when the notice arrives (after S), so the same holds on every node.
    static func becomeAuthenticated(
        _ app: ProtocolApplication, _ identity: Identity, sweeps: UInt64, service: IdentityService
    ) {
        app.authenticated(identity)
        let services = app.services
        guard services.registry.closeSweeps != sweeps else { return }
        let connection = app.connectionId
        Task(executorPreference: services.executor) {
            let closing: Deliveries.Closing?
            do throws(IdentityError) {
                closing = try await service.closing(sessionId: identity.sessionId)
                guard closing != nil else { return }
            } catch {
                closing = nil
            }
            services.deliveries.close(connection, userId: identity.userId, as: closing)
        }
    }

    /// `becomeAuthenticated` for `register` and `login`'s credentials.
    static func becomeAuthenticated(
        _ app: ProtocolApplication, _ c: SessionCredentials, sweeps: UInt64, service: IdentityService
    ) {
        becomeAuthenticated(app, Identity(userId: c.userId, sessionId: c.sessionId), sweeps: sweeps, service: service)
    }
}
