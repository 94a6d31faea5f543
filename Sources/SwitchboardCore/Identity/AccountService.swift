//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import Logging
public import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// A user's public profile.
public struct Profile: Codable, Sendable, Equatable {
    public var userId: Int64
    public var displayName: String
    public var phone: String?
    /// `admin` or `user`, in one's own profile only (moderation).
    public var role: String? = nil
    /// IANA time zone and BCP 47 locale, in one's own profile only (`UTC`, `en-US` when never set).
    public var timeZone: String? = nil
    public var locale: String? = nil
    /// Social fields (`SocialGraphRepository.decorate`): handle, bio, protected and stats; `dm_policy` in one's own
    /// profile only, `relationship` in others' only.
    public var handle: String? = nil
    public var bio: String? = nil
    public var protected: Bool? = nil
    public var dmPolicy: String? = nil
    public var stats: ProfileStats? = nil
    public var relationship: ProfileRelationship? = nil
    /// The profile picture (`SocialGraphRepository.decorate`); nil when none.
    public var avatar: Photo? = nil
}

/// One of a user's sessions (devices).
public struct SessionInfo: Codable, Sendable, Equatable {
    public var sessionId: Int64
    public var device: String
    public var createdAt: String
    public var lastSeenAt: String
    public var current: Bool
}

/// What register/login return.
public struct Credentials: Codable, Sendable {
    public var userId: Int64
    public var sessionId: Int64
    public var sessionToken: String
}

/// An authenticated connection's identity.
public struct Identity: Sendable, Equatable {
    public var userId: Int64
    public var sessionId: Int64
    public init(userId: Int64, sessionId: Int64) {
        self.userId = userId
        self.sessionId = sessionId
    }
}

/// Accounts and sessions, backed by PostgreSQL. Every state change is one transaction; hashing runs on
/// the hasher pool and database work on the store's worker queues, never on a loop queue.
public final class AccountService: Sendable {
    public let pool: DatabasePool
    let hasher: PasswordHasherPool
    let logger: Logger
    /// Login attempts per phone number and per address.
    let limiter: LoginLimiter
    /// How many nodes share the login limits (the live nodes of a cluster, 1 alone): each node charges that many
    /// per attempt, so that the nodes together allow the configured rate (`docs/cluster.md`, Limits).
    public let nodesSharingLimits: @Sendable () -> Int
    public let defaultCountryCode: String?
    /// Display names: at most 64 characters and 256 UTF-8 bytes, one line, no control characters.
    public static let displayNameRule = TextRule(field: "display_name", maxCharacters: 64, maxBytes: 256)
    /// Device names: at most 64 characters and 256 UTF-8 bytes, one line, no control characters.
    public static let deviceRule = TextRule(field: "device", maxCharacters: 64, maxBytes: 256)

    public init(
        pool: DatabasePool, hasher: PasswordHasherPool, logger: Logger, defaultCountryCode: String? = nil,
        loginLimits: LoginLimits = LoginLimits(), nodesSharingLimits: @escaping @Sendable () -> Int = { 1 }
    ) {
        self.nodesSharingLimits = nodesSharingLimits
        self.pool = pool
        self.hasher = hasher
        self.logger = logger
        self.defaultCountryCode = defaultCountryCode
        limiter = LoginLimiter(loginLimits)
    }

    func normalizedPhone(_ raw: String) throws(ServiceError) -> String {
        do {
            return try PhoneNumber.normalize(raw, defaultCountryCode: defaultCountryCode)
        } catch {
            throw ServiceError(.invalidPhone, "not a valid phone number")
        }
    }

    /// A name as stored: white space around it trimmed, then checked against `rule` (`bad_request` naming the rule).
    static func validName(_ raw: String, rule: TextRule) throws(ServiceError) -> String {
        // The byte limit first: an oversized string is refused before any scan (4x: trimming removes little).
        guard raw.utf8.count <= rule.maxBytes * 4 else {
            throw ServiceError(.badRequest, "\(rule.field) is longer than \(rule.maxBytes) bytes (UTF-8)")
        }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = StoredText.problem(name, rule) { throw ServiceError(.badRequest, problem) }
        return name
    }

    /// Creates an account and its first session.
    public func register(
        phone rawPhone: String, password: String, displayName: String, device: String, handle: String? = nil
    ) async throws(ServiceError) -> Credentials {
        if let handle { try Self.checkHandle(handle) }
        let phone = try normalizedPhone(rawPhone)
        let name = try Self.validName(displayName, rule: Self.displayNameRule)
        let device = try Self.validName(device, rule: Self.deviceRule)
        guard password.utf8.count <= PasswordPolicy.maxLength else { throw ServiceError(.badRequest, "password too long") }
        // Hashed, not stored, and hashed with its length (U+0000 would not cut it short); refused anyway, as
        // other clients' C code would cut it.
        guard !StoredText.containsNUL(password) else { throw ServiceError(.badRequest, "password contains U+0000") }
        if let weakness = PasswordPolicy.check(password, phone: phone) {
            throw ServiceError(.weakPassword, "the password is too weak: \(weakness.rawValue)", reason: weakness.rawValue)
        }
        let encoded: String
        do { encoded = try await hasher.hash(password) } catch { throw ServiceError(.unavailable, "busy; retry shortly") }
        let token = SessionToken.generate()
        do {
            return try await pool.transaction { db in
                guard let userId = try UserRepository.insert(db, phone: phone, passwordHash: encoded, displayName: name) else {
                    throw ServiceError(.phoneTaken, "this phone number is already registered")
                }
                if let handle, !(try SocialGraphRepository.setHandle(db, userId, handle)) {
                    throw ServiceError(.handleTaken, "this handle is taken")
                }
                let sessionId = try Self.insertSession(db, userId: userId, token: token, device: device)
                return Credentials(userId: userId, sessionId: sessionId, sessionToken: token.string)
            }
        } catch { throw ServiceError.from(error) }
    }

    static func insertSession(_ db: PostgresConnection, userId: Int64, token: SessionToken, device: String) throws -> Int64 {
        guard let id = try SessionRepository.insert(db, userId: userId, tokenHash: token.hash, device: device) else {
            throw ServiceError(.internal, "internal error")
        }
        return id
    }

    /// Checks the password and opens a session; rate-limited per phone number and per address.
    public func login(phone rawPhone: String, password: String, device: String, address: String, now: UInt64) async throws(ServiceError) -> Credentials {
        let phone = try normalizedPhone(rawPhone)
        let device = try Self.validName(device, rule: Self.deviceRule)
        guard password.utf8.count <= PasswordPolicy.maxLength else { throw ServiceError(.invalidCredentials, "wrong phone number or password") }
        if let retry = limiter.attempt(phone: phone, address: address, now: now, cost: nodesSharingLimits()) {
            throw ServiceError(.rateLimited, "too many login attempts; retry later", extra: ["retry_after_ms": Int64((retry + 999_999) / 1_000_000)])  // rounded up: retrying at the given time succeeds
        }
        let row: (Int64, String)?
        do {
            row = try await pool.withConnection { db -> (Int64, String)? in try UserRepository.credentials(db, phone: phone) }
        } catch { throw ServiceError.from(error) }
        let valid: Bool
        do {
            if let (_, hash) = row {
                valid = try await hasher.verify(password, encoded: hash)
            } else {
                try await hasher.dummyVerify(password)  // same time whether or not the phone is registered
                valid = false
            }
        } catch { throw ServiceError(.unavailable, "busy; retry shortly") }
        guard valid, let (userId, _) = row else { throw ServiceError(.invalidCredentials, "wrong phone number or password") }
        let token = SessionToken.generate()
        do {
            let sessionId = try await pool.transaction { db in
                if try ModerationRepository.standing(db, of: userId)?.suspended == true { throw ServiceError.accountSuspended }
                return try Self.insertSession(db, userId: userId, token: token, device: device)
            }
            return Credentials(userId: userId, sessionId: sessionId, sessionToken: token.string)
        } catch { throw ServiceError.from(error) }
    }

    /// Resolves a session token.
    public func authenticate(token: String) async throws(ServiceError) -> (Identity, Profile) {
        guard let hash = SessionToken.hash(of: token) else { throw ServiceError(.invalidToken, "invalid or revoked session token") }
        do {
            let found: (Identity, Profile)? = try await pool.withConnection { db -> (Identity, Profile)? in
                guard var found = try SessionRepository.authenticate(db, tokenHash: hash) else { return nil }
                let standing = try ModerationRepository.standing(db, of: found.0.userId)
                if standing?.suspended == true { throw ServiceError.accountSuspended }
                found.1.role = standing?.admin == true ? "admin" : "user"
                return found
            }
            guard let found else { throw ServiceError(.invalidToken, "invalid or revoked session token") }
            return found
        } catch { throw ServiceError.from(error) }
    }

    /// Revokes one of the user's sessions; false when it is not theirs or already revoked.
    public func revoke(sessionId: Int64, of userId: Int64) async throws(ServiceError) -> Bool {
        do {
            return try await pool.transaction { db in try SessionRepository.revoke(db, sessionId: sessionId, of: userId) }
        } catch { throw ServiceError.from(error) }
    }

    /// The user's active sessions, newest first.
    public func sessions(of identity: Identity) async throws(ServiceError) -> [SessionInfo] {
        do {
            return try await pool.withConnection { db in
                try SessionRepository.list(db, of: identity.userId, currentSessionId: identity.sessionId)
            }
        } catch { throw ServiceError.from(error) }
    }

    /// A profile: one's own (with phone), or a friend's.
    public func profile(of userId: Int64, viewer: Int64) async throws(ServiceError) -> Profile {
        do {
            let found: Profile? = try await pool.withConnection { db -> Profile? in
                if userId != viewer { guard try SocialGraphRepository.canSeeProfile(db, viewer: viewer, user: userId) else { return nil } }
                guard var profile = try UserRepository.profile(db, of: userId) else { return nil }
                try SocialGraphRepository.decorate(db, &profile, viewer: viewer)
                if userId != viewer { profile.phone = nil }
                if userId == viewer { profile.role = try ModerationRepository.standing(db, of: userId)?.admin == true ? "admin" : "user" }
                if userId == viewer, let preferences = try UserRepository.preferences(db, of: userId) {
                    profile.timeZone = preferences.timeZone ?? "UTC"
                    profile.locale = preferences.locale ?? "en-US"
                }
                return profile
            }
            guard let found else { throw ServiceError(.notFound, "no such user") }
            return found
        } catch { throw ServiceError.from(error) }
    }

    /// Changes the display name.
    public func updateProfile(of userId: Int64, displayName: String) async throws(ServiceError) -> Profile {
        let name = try Self.validName(displayName, rule: Self.displayNameRule)
        do {
            return try await pool.transaction { db in
                Profile(userId: userId, displayName: name, phone: try UserRepository.setDisplayName(db, of: userId, to: name))
            }
        } catch { throw ServiceError.from(error) }
    }

    /// Changes whichever of the display name, time zone (IANA, `unknown time zone` otherwise) and locale (BCP 47)
    /// are given (at least one); the own profile after the change, with `time_zone` and `locale`.
    public func updateProfile(of userId: Int64, displayName: String?, timeZone: String?, locale: String?) async throws(ServiceError) -> Profile {
        try await updateProfile(of: userId, displayName: displayName, timeZone: timeZone, locale: locale, social: SocialProfileChange()).profile
    }

    /// As above, also the social fields (`bio`, `protected`, `dm_policy`); at least one field. Turning `protected`
    /// off approves every pending follow request in the same transaction: their followers' ids are returned.
    public func updateProfile(
        of userId: Int64, displayName: String?, timeZone: String?, locale: String?, social: SocialProfileChange
    ) async throws(ServiceError) -> (profile: Profile, approved: [Int64]) {
        guard displayName != nil || timeZone != nil || locale != nil || !social.isEmpty else {
            throw ServiceError(.badRequest, "give display_name, time_zone, locale, bio, protected or dm_policy")
        }
        let name = try displayName.map { name throws(ServiceError) in try Self.validName(name, rule: Self.displayNameRule) }
        let zone = try timeZone.map { zone throws(ServiceError) in try Self.validTimeZone(zone) }
        let locale = try locale.map { locale throws(ServiceError) in try Self.validLocale(locale) }
        var checked = social
        try checked.validate()
        let social = checked
        do {
            let result: (Profile, [Int64])? = try await pool.transaction { db -> (Profile, [Int64])? in
                guard try UserRepository.updateProfile(db, of: userId, displayName: name, timeZone: zone, locale: locale) else { return nil }
                let approved = try SocialGraphRepository.updateSocialProfile(db, of: userId, social)
                guard var profile = try UserRepository.profile(db, of: userId), let preferences = try UserRepository.preferences(db, of: userId)
                else { return nil }
                profile.timeZone = preferences.timeZone ?? "UTC"
                profile.locale = preferences.locale ?? "en-US"
                try SocialGraphRepository.decorate(db, &profile, viewer: userId)
                return (profile, approved)
            }
            guard let result else { throw ServiceError(.notFound, "no such user") }
            return (result.0, result.1)
        } catch { throw ServiceError.from(error) }
    }

    /// `bad_request` with the handle rule's message unless `handle` may be chosen (taken or not aside).
    public static func checkHandle(_ handle: String) throws(ServiceError) {
        switch Handle.validate(handle) {
        case nil: return
        case .reserved: throw ServiceError(.badRequest, "this handle is reserved")
        default: throw ServiceError(.badRequest, "a handle is 3 to 30 letters, digits or underscores")
        }
    }

    /// An IANA time zone name Foundation knows (kept as given); `bad_request` "unknown time zone".
    public static func validTimeZone(_ name: String) throws(ServiceError) -> String {
        guard name.utf8.count <= 64, !name.isEmpty, TimeZone(identifier: name) != nil else {
            throw ServiceError(.badRequest, "unknown time zone")
        }
        return name
    }

    /// A BCP 47 language tag (`fr`, `fr-FR`, `zh-Hant-TW`): a 2-3 letter language, then subtags of 1-8 letters or
    /// digits; at most 35 characters. `bad_request` "invalid locale" otherwise.
    public static func validLocale(_ tag: String) throws(ServiceError) -> String {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard tag.utf8.count <= 35, let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { throw ServiceError(.badRequest, "invalid locale") }
        return tag
    }
}

/// Login attempt limits (token buckets): a burst, then one attempt per interval.
public struct LoginLimits: Sendable {
    public var perPhoneBurst = 5
    public var perPhoneIntervalSeconds = 12.0
    public var perAddressBurst = 20
    public var perAddressIntervalSeconds = 3.0
    public init() {}
}

/// Login attempt limits per phone number and per address. Thread-safe: a lock around two `RateLimiter`s.
final class LoginLimiter: @unchecked Sendable {
    // @unchecked Sendable: both limiters are only touched under `lock`.
    private let lock = NSLock()
    private var byPhone: RateLimiter<String>
    private var byAddress: RateLimiter<String>

    init(_ limits: LoginLimits) {
        byPhone = RateLimiter(
            capacity: Double(limits.perPhoneBurst), refillPerSecond: 1 / max(limits.perPhoneIntervalSeconds, 0.000_001), maxKeys: 100_000)
        byAddress = RateLimiter(
            capacity: Double(limits.perAddressBurst), refillPerSecond: 1 / max(limits.perAddressIntervalSeconds, 0.000_001), maxKeys: 100_000)
    }

    /// nil when allowed, else nanoseconds to wait.
    func attempt(phone: String, address: String, now: UInt64, cost: Int = 1) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        let c = Double(max(1, cost))
        if case .limited(let retry) = byAddress.attempt(address, now: now, cost: min(c, byAddress.capacity)) { return retry }
        if case .limited(let retry) = byPhone.attempt(phone, now: now, cost: min(c, byPhone.capacity)) { return retry }
        return nil
    }
}

extension PostgresError {
    /// The connection failed, broke or was closed, or the server ended the session (SQLSTATE class 08
    /// connection exception, 57P01-57P05 shutdown, crash, cannot connect now, idle timeouts): a failure of the
    /// database, not of the statement; whether a COMMIT sent just before took effect is unknown.
    public var isConnectionProblem: Bool {
        switch kind {
        case .connectionFailed, .connectionLost, .closed: return true
        case .server: return sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false
        default: return false
        }
    }

    /// The statement was refused because of the data it carried (SQLSTATE class 22 data exception, 23
    /// integrity constraint violation, 54 program limit exceeded such as an index row too large): retrying
    /// other writes without it can succeed.
    public var isDataProblem: Bool {
        guard kind == .server, let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState.hasPrefix("23") || sqlState.hasPrefix("54")
    }
}
