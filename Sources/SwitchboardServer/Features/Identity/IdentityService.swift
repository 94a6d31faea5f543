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

/// Accounts and sessions' use cases (docs/protocol.md "Accounts"): registration, login, token authentication,
/// sessions, profiles, and the password check of `account.delete`. Each change is one transaction on the database
/// seam with the rules (`IdentityRules`) checked first; hashing runs on the hasher pool, never on a loop; events
/// are returned with the result (never pushed from here). Shared by the features that authenticate bearer tokens or
/// read profiles (`ProtocolServices.accounts`). Off the loops only.
final class IdentityService: Sendable {
    /// The database (the server's pool, the test database in tests).
    let db: any Database
    /// Argon2id hashing and verification (its own worker threads).
    let hasher: PasswordHasherPool
    /// The calling code for national phone numbers (`--default-country-code`; nil: `+` required).
    let defaultCountryCode: String?
    /// The login limits (`--login-*`), for the configuration group.
    let loginLimits: LoginLimits
    /// The registration limits (`--register-*` of `DiscoveryLimits`), for the configuration group.
    let registrationLimits: DiscoveryLimits
    /// Login attempts per phone number and per address (also the password check of `account.delete`).
    let logins: LoginLimiter
    /// Registrations per client address (successful or not): `register` tells whether a number is taken.
    let registrations: SharedRateLimiter<String>
    /// How many nodes share the login limits (the live nodes of a cluster, 1 alone): each node charges that many
    /// per attempt, so that the nodes together allow the configured rate (`docs/cluster.md`, Limits).
    let nodesSharingLimits: @Sendable () -> Int
    /// Monotonic nanoseconds for the rate limiters (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock
    /// Phone verification codes (`verification.start`, the code of `register`, `password.reset`).
    let verifier: PhoneVerifier

    init(
        db: any Database, hasher: PasswordHasherPool, defaultCountryCode: String? = nil,
        loginLimits: LoginLimits = LoginLimits(), registrationLimits: DiscoveryLimits = DiscoveryLimits(),
        verification: PhoneVerificationSettings = PhoneVerificationSettings(), smsGateway: (any SMSGateway)? = nil,
        smsGatewayFailed: @escaping @Sendable () -> Void = {},
        nodesSharingLimits: @escaping @Sendable () -> Int = { 1 }, clock: any EngineClock = SystemClock()
    ) {
        self.db = db
        self.hasher = hasher
        self.defaultCountryCode = defaultCountryCode
        self.loginLimits = loginLimits
        self.registrationLimits = registrationLimits
        logins = LoginLimiter(loginLimits)
        registrations = SharedRateLimiter(
            capacity: Double(max(1, registrationLimits.registerBurstPerAddress)),
            refillPerSecond: 1 / max(registrationLimits.registerIntervalPerAddress, 0.000_001))
        self.nodesSharingLimits = nodesSharingLimits
        self.clock = clock
        verifier = PhoneVerifier(
            db: db, settings: verification, gateway: smsGateway, gatewayFailed: smsGatewayFailed,
            nodesSharingLimits: nodesSharingLimits, clock: clock)
    }

    /// `register`: an account and its first session. Counts against the address's registrations first (answered
    /// or not, a registration tells whether the number is taken). When phone verification is required, `code` must
    /// be the number's live `register` code: checked before hashing, used up in the transaction that creates the
    /// account (a refused registration leaves it).
    func register(
        phone rawPhone: String, password: String, displayName: String, device: String, handle: String?,
        code: String? = nil, address: String
    ) async throws(IdentityError) -> SessionCredentials {
        if let retryAfter = registrations.attempt(address, now: clock.now()).retryAfterMilliseconds {
            throw .registrationsLimited(retryAfterMilliseconds: retryAfter)
        }
        if let handle { try IdentityRules.handle(handle) }
        let phone = try IdentityRules.phone(rawPhone, defaultCountryCode: defaultCountryCode)
        let name = try IdentityRules.name(displayName, rule: IdentityRules.displayNameRule)
        let device = try IdentityRules.name(device, rule: IdentityRules.deviceRule)
        try IdentityRules.newPassword(password, phone: phone)
        var verified: [UInt8]?
        if verifier.required {
            guard let code else { throw .invalidCode }
            verified = try await verifier.check(phone: phone, purpose: .register, code: code)
        }
        let encoded: String
        do { encoded = try await hasher.hash(password) } catch { throw .hasherBusy(underlying: error) }
        let token = SessionToken.generate()
        let codeHash = verified
        return try await db.write(as: IdentityError.self) { db in
            if let codeHash, !(try VerificationRepository.consume(db, phone: phone, purpose: .register, hash: codeHash))
            {
                throw IdentityError.invalidCode
            }
            guard let userId = try UserRepository.insert(db, phone: phone, passwordHash: encoded, displayName: name)
            else { throw IdentityError.phoneTaken }
            if let handle, !(try SocialGraphRepository.setHandle(db, userId, handle)) {
                throw IdentityError.handleTaken
            }
            let sessionId = try Self.insertSession(db, userId: userId, token: token, device: device)
            return SessionCredentials(userId: userId, sessionId: sessionId, sessionToken: token.string)
        }
    }

    /// `verification.start`: a code for `purpose` sent to the number if it fits (docs/protocol.md "Phone
    /// verification"); the same answer whether or not it was sent.
    func startVerification(phone rawPhone: String, purpose rawPurpose: String, address: String)
        async throws(IdentityError)
    {
        guard let purpose = VerificationPurpose(rawValue: rawPurpose) else { throw .invalidPurpose }
        let phone = try IdentityRules.phone(rawPhone, defaultCountryCode: defaultCountryCode)
        try await verifier.start(phone: phone, purpose: purpose, address: address)
    }

    /// `password.reset`: with the number's live `reset` code, a new password (the rules of `register`), every
    /// session of the account revoked and a new one opened; the credentials and the revoked sessions' ids. An
    /// unknown number answers `invalidCode` like a wrong code.
    func resetPassword(phone rawPhone: String, code: String, password: String, device: String)
        async throws(IdentityError) -> (SessionCredentials, revoked: [Int64])
    {
        guard verifier.gateway != nil else { throw .verificationUnavailable }
        let phone = try IdentityRules.phone(rawPhone, defaultCountryCode: defaultCountryCode)
        let device = try IdentityRules.name(device, rule: IdentityRules.deviceRule)
        try IdentityRules.newPassword(password, phone: phone)
        let codeHash = try await verifier.check(phone: phone, purpose: .reset, code: code)
        let encoded: String
        do { encoded = try await hasher.hash(password) } catch { throw .hasherBusy(underlying: error) }
        let token = SessionToken.generate()
        return try await db.write(as: IdentityError.self) { db in
            guard try VerificationRepository.consume(db, phone: phone, purpose: .reset, hash: codeHash),
                let userId = try UserRepository.credentials(db, phone: phone)?.userId,
                try UserRepository.setPasswordHash(db, of: userId, to: encoded)
            else { throw IdentityError.invalidCode }
            if try ModerationRepository.standing(db, of: userId)?.suspended == true { throw IdentityError.suspended }
            let revoked = try SessionRepository.revokeAll(db, of: userId)
            let sessionId = try Self.insertSession(db, userId: userId, token: token, device: device)
            return (SessionCredentials(userId: userId, sessionId: sessionId, sessionToken: token.string), revoked)
        }
    }

    /// `login`: checks the password and opens a session; limited per phone number and per address. An unknown
    /// number costs the same hashing time as a wrong password.
    func login(
        phone rawPhone: String, password: String, device: String, address: String
    ) async throws(IdentityError) -> SessionCredentials {
        let phone = try IdentityRules.phone(rawPhone, defaultCountryCode: defaultCountryCode)
        let device = try IdentityRules.name(device, rule: IdentityRules.deviceRule)
        guard password.utf8.count <= PasswordPolicy.maxLength else { throw .wrongCredentials }
        if let retry = logins.attempt(phone: phone, address: address, now: clock.now(), cost: nodesSharingLimits()) {
            throw .loginsLimited(retryAfterMilliseconds: LoginLimiter.milliseconds(retry))
        }
        let row = try await db.read(as: IdentityError.self) { db in try UserRepository.credentials(db, phone: phone) }
        let valid: Bool
        do {
            if let row {
                valid = try await hasher.verify(password, encoded: row.passwordHash)
            } else {
                try await hasher.dummyVerify(password)  // same time whether or not the phone is registered
                valid = false
            }
        } catch { throw .hasherBusy(underlying: error) }
        guard valid, let userId = row?.userId else { throw .wrongCredentials }
        let token = SessionToken.generate()
        let sessionId = try await db.write(as: IdentityError.self) { db in
            if try ModerationRepository.standing(db, of: userId)?.suspended == true { throw IdentityError.suspended }
            return try Self.insertSession(db, userId: userId, token: token, device: device)
        }
        return SessionCredentials(userId: userId, sessionId: sessionId, sessionToken: token.string)
    }

    /// `authenticate` and bearer tokens (the hot path: one hash, one connection, two indexed statements): the
    /// session of a token and its user's own profile (with `role`).
    func authenticate(token: String) async throws(IdentityError) -> (Identity, Profile) {
        guard let hash = SessionToken.hash(of: token) else { throw .invalidToken }
        let found = try await db.read(as: IdentityError.self) { db -> (Identity, Profile)? in
            guard var found = try SessionRepository.authenticate(db, tokenHash: hash) else { return nil }
            let standing = try ModerationRepository.standing(db, of: found.0.userId)
            if standing?.suspended == true { throw IdentityError.suspended }
            found.1.role = standing?.admin == true ? "admin" : "user"
            return found
        }
        guard let found else { throw .invalidToken }
        return found
    }

    /// What a connection authenticated as `sessionId` must be closed for now (nil: nothing, it stays open): the
    /// check an authentication makes again when a close sweep ran while it was in flight (`IdentityFeature`).
    func closing(sessionId: Int64) async throws(IdentityError) -> Deliveries.Closing? {
        let standing = try await db.read(as: IdentityError.self) { db in
            try SessionRepository.standing(db, sessionId: sessionId)
        }
        guard let standing else { return .revoked }
        if standing.deleted { return .deleted }
        if standing.suspended { return .suspended }
        return standing.revoked ? .revoked : nil
    }

    /// `logout`: revokes the caller's own session (already revoked: nothing to do).
    func logout(_ caller: Caller) async throws(IdentityError) {
        let (sessionId, userId) = (caller.sessionId, caller.userId)
        _ = try await db.write(as: IdentityError.self) { db in
            try SessionRepository.revoke(db, sessionId: sessionId, of: userId)
        }
    }

    /// `sessions.revoke`: one of the caller's live sessions (`noSuchSession` for anyone else's, or a revoked one).
    func revoke(_ caller: Caller, sessionId: Int64) async throws(IdentityError) {
        let userId = caller.userId
        let revoked = try await db.write(as: IdentityError.self) { db in
            try SessionRepository.revoke(db, sessionId: sessionId, of: userId)
        }
        guard revoked else { throw .noSuchSession }
    }

    /// `sessions.list`: the caller's live sessions, newest first, the caller's own marked `current`.
    func sessions(_ caller: Caller) async throws(IdentityError) -> SessionsListResult {
        let (sessionId, userId) = (caller.sessionId, caller.userId)
        let sessions = try await db.read(as: IdentityError.self) { db in
            try SessionRepository.list(db, of: userId, currentSessionId: sessionId)
        }
        return SessionsListResult(sessions: sessions.map(DeviceSession.init))
    }

    /// `profile.get`: one's own profile (with phone, role, zone and locale), or one the viewer may see by id or
    /// by handle; `noSuchUser` for anything else (the same answer for a missing user and a hidden one).
    func profile(viewer: Int64, userId: Int64?, handle: String?) async throws(IdentityError) -> ProfileResult {
        let profile = try await db.read(as: IdentityError.self) { db -> Profile? in
            var target = userId ?? viewer
            if userId == nil, let handle {
                guard let found = try SocialGraphRepository.userId(db, handle: handle) else { return nil }
                target = found
            }
            return try Self.profile(db, of: target, viewer: viewer)
        }
        guard let profile else { throw .noSuchUser }
        return ProfileResult(profile: UserProfile(profile))
    }

    /// `profile.update`: whichever of the display name, time zone, locale and social fields are given (at least
    /// one), in one transaction. Turning `protected` off approves every pending follow request: their followers'
    /// ids come back as `approved`. A new display name is told to the caller's friends and own devices
    /// (`profile.updated`, without the phone number).
    func updateProfile(
        _ caller: Caller, displayName: String?, timeZone: String?, locale: String?, social: SocialProfileChange
    ) async throws(IdentityError) -> (ProfileResult, approved: [Int64], [DomainEvent]) {
        guard displayName != nil || timeZone != nil || locale != nil || !social.isEmpty else {
            throw .nothingToUpdate
        }
        let name = try displayName.map { name throws(IdentityError) in
            try IdentityRules.name(name, rule: IdentityRules.displayNameRule)
        }
        let zone = try timeZone.map { zone throws(IdentityError) in try IdentityRules.timeZone(zone) }
        let locale = try locale.map { locale throws(IdentityError) in try IdentityRules.locale(locale) }
        var checked = social
        do { try checked.validate() } catch { throw .socialProfile(error.wire) }
        let change = checked
        let me = caller.userId
        let updated = try await db.write(as: IdentityError.self) { db -> (Profile, [Int64], [Int64])? in
            guard try UserRepository.updateProfile(db, of: me, displayName: name, timeZone: zone, locale: locale)
            else { return nil }
            let approved = try SocialGraphRepository.updateSocialProfile(db, of: me, change)
            guard var profile = try UserRepository.profile(db, of: me),
                let preferences = try UserRepository.preferences(db, of: me)
            else { return nil }
            profile.timeZone = preferences.timeZone ?? "UTC"
            profile.locale = preferences.locale ?? "en-US"
            try SocialGraphRepository.decorate(db, &profile, viewer: me)
            let audience = name == nil ? [] : try FriendRepository.friends(db, of: me).map(\.userId) + [me]
            return (profile, approved, audience)
        }
        guard let (profile, approved, audience) = updated else { throw .noSuchUser }
        let result = ProfileResult(profile: UserProfile(profile))
        guard name != nil else { return (result, approved, []) }
        // Without the phone number.
        let shown = UserProfile(userId: profile.userId, displayName: profile.displayName, handle: profile.handle)
        return (result, approved, [DomainEvent(to: audience, ServerEvent.ProfileUpdated(profile: shown))])
    }

    /// The password check of `account.delete`: the live account's password, limited like logins (per phone number
    /// and per address); `wrongPassword` when wrong or when the account is gone.
    func verifyPassword(userId: Int64, password: String, address: String) async throws(IdentityError) {
        guard password.utf8.count <= PasswordPolicy.maxLength else { throw .wrongPassword }
        let row = try await db.read(as: IdentityError.self) { db in try UserRepository.passwordCheck(db, userId: userId)
        }
        guard let row else { throw .wrongPassword }
        if let retry = logins.attempt(
            phone: row.phone, address: address, now: clock.now(), cost: nodesSharingLimits())
        {
            throw .passwordAttemptsLimited(retryAfterMilliseconds: LoginLimiter.milliseconds(retry))
        }
        let valid: Bool
        do { valid = try await hasher.verify(password, encoded: row.passwordHash) } catch {
            throw .hasherBusy(underlying: error)
        }
        guard valid else { throw .wrongPassword }
    }

    /// A profile as `viewer` may see it, or nil: one's own (with phone, role, zone and locale) or one that
    /// `SocialGraphRepository.canSeeProfile` allows (without phone).
    static func profile(_ db: PostgresConnection, of userId: Int64, viewer: Int64) throws -> Profile? {
        if userId != viewer {
            guard try SocialGraphRepository.canSeeProfile(db, viewer: viewer, user: userId) else { return nil }
        }
        guard var profile = try UserRepository.profile(db, of: userId) else { return nil }
        try SocialGraphRepository.decorate(db, &profile, viewer: viewer)
        guard userId == viewer else {
            profile.phone = nil
            return profile
        }
        profile.role = try ModerationRepository.standing(db, of: userId)?.admin == true ? "admin" : "user"
        if let preferences = try UserRepository.preferences(db, of: userId) {
            profile.timeZone = preferences.timeZone ?? "UTC"
            profile.locale = preferences.locale ?? "en-US"
        }
        return profile
    }

    /// Opens a session for `token`; its id.
    static func insertSession(_ db: PostgresConnection, userId: Int64, token: SessionToken, device: String) throws
        -> Int64
    {
        guard let id = try SessionRepository.insert(db, userId: userId, tokenHash: token.hash, device: device) else {
            throw IdentityError.sessionNotStored
        }
        return id
    }
}
