//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import Testing

@testable import SwitchboardServer

/// A phone number nobody else's test uses (E.164, 14 digits).
func servicePhone() -> String { "+1555\(Int.random(in: 1_000_000...9_999_999))\(Int.random(in: 100...999))" }

/// Cheap Argon2id parameters (the service's rules are under test, not the hash's cost).
let cheapHasher: PasswordHasherPool = {
    var parameters = PasswordHashParameters()
    parameters.memoryKiB = 64
    parameters.iterations = 1
    return PasswordHasherPool(workers: 2, maxWaiting: 64, parameters: parameters)
}()

/// `IdentityService` without sockets: registration, login and tokens, sessions and profiles against the test
/// database; the registration and login buckets on a manual clock.
@Suite("Identity service (the test database, a manual clock)")
struct IdentityServiceTests {
    let clock = ManualClock()
    let password = "blue kettle 4 tea"

    /// A service with small buckets: 3 registrations per address then one every 60 s; 2 logins per phone number
    /// then one every 10 s.
    func service() throws -> IdentityService {
        var login = LoginLimits()
        login.perPhoneBurst = 2
        login.perPhoneIntervalSeconds = 10
        var discovery = DiscoveryLimits()
        discovery.registerBurstPerAddress = 3
        discovery.registerIntervalPerAddress = 60
        return IdentityService(
            db: try EngineTestDatabase.shared.pool, hasher: cheapHasher, defaultCountryCode: "1", loginLimits: login,
            registrationLimits: discovery, clock: clock)
    }

    /// Registers `name` from an address of its own.
    func register(
        _ identity: IdentityService, _ name: String, phone: String = servicePhone(), handle: String? = nil
    ) async throws -> SessionCredentials {
        try await identity.register(
            phone: phone, password: password, displayName: name, device: "phone", handle: handle,
            address: "10.0.0.\(Int.random(in: 1...250))-\(UUID().uuidString)")
    }

    @Test func aRegisteredAccountLogsInAndItsTokenAuthenticates() async throws {
        let identity = try service()
        let phone = servicePhone()
        let registered = try await register(identity, "  Ann  ", phone: phone)
        let (who, profile) = try await identity.authenticate(token: registered.sessionToken)
        #expect(who == Identity(userId: registered.userId, sessionId: registered.sessionId))
        // One's own profile: trimmed name, phone, role, zone and locale defaults.
        #expect(profile.displayName == "Ann")
        #expect(profile.phone == phone)
        #expect(profile.role == "user")
        #expect(profile.timeZone == "UTC" && profile.locale == "en-US")
        let again = try await identity.login(phone: phone, password: password, device: "laptop", address: "a")
        #expect(again.userId == registered.userId)
        #expect(again.sessionId != registered.sessionId)
        await #expect(throws: IdentityError.wrongCredentials) {
            _ = try await identity.login(phone: phone, password: "not the password", device: "laptop", address: "a")
        }
        // An unknown number gets the same answer (and costs the same hashing time).
        await #expect(throws: IdentityError.wrongCredentials) {
            _ = try await identity.login(phone: servicePhone(), password: password, device: "laptop", address: "a")
        }
        await #expect(throws: IdentityError.phoneTaken) { _ = try await register(identity, "Other", phone: phone) }
        await #expect(throws: IdentityError.invalidToken) { _ = try await identity.authenticate(token: "nonsense") }
    }

    @Test func theRulesComeBeforeTheDatabase() async throws {
        let identity = try service()
        await #expect(throws: IdentityError.invalidPhone) { _ = try await register(identity, "Ann", phone: "12ab") }
        await #expect(throws: IdentityError.invalidText("display_name is empty")) {
            _ = try await register(identity, "   ")
        }
        await #expect(throws: IdentityError.nameTooLong(field: "display_name", maxBytes: 256)) {
            _ = try await register(identity, String(repeating: "a", count: 1025))
        }
        await #expect(throws: IdentityError.handleReserved) { _ = try await register(identity, "Ann", handle: "admin") }
        await #expect(throws: IdentityError.invalidHandle) { _ = try await register(identity, "Ann", handle: "a!") }
        let weak = IdentityError.weakPassword(.sequence)
        #expect(weak.wire.code == .weakPassword && weak.wire.reason == "sequence")
        await #expect(throws: weak) {
            _ = try await identity.register(
                phone: servicePhone(), password: "123456", displayName: "Ann", device: "d", handle: nil, address: "w")
        }
        await #expect(throws: IdentityError.passwordContainsNUL) {
            _ = try await identity.register(
                phone: servicePhone(), password: "blue\u{0}kettle", displayName: "Ann", device: "d", handle: nil,
                address: "n")
        }
        await #expect(throws: IdentityError.passwordTooLong) {
            _ = try await identity.register(
                phone: servicePhone(), password: String(repeating: "ab", count: 600), displayName: "Ann", device: "d",
                handle: nil, address: "l")
        }
        // The handle is checked against the others' inside the transaction (nothing stored).
        let handle = "svc_\(Int.random(in: 100_000...999_999))"
        _ = try await register(identity, "Ann", handle: handle)
        let phone = servicePhone()
        await #expect(throws: IdentityError.handleTaken) {
            _ = try await register(identity, "Bob", phone: phone, handle: handle)
        }
        _ = try await register(identity, "Bob", phone: phone)
    }

    @Test func registrationsAndLoginsRefillOnTheClock() async throws {
        let identity = try service()
        let address = "192.0.2.\(Int.random(in: 1...250))-\(UUID().uuidString)"
        for _ in 0..<3 {
            _ = try await identity.register(
                phone: servicePhone(), password: password, displayName: "R", device: "d", handle: nil, address: address)
        }
        do {
            _ = try await identity.register(
                phone: servicePhone(), password: password, displayName: "R", device: "d", handle: nil, address: address)
            Issue.record("a fourth registration within the burst was accepted")
        } catch {
            guard case .registrationsLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 59_000 && retryAfter <= 60_000)
        }
        clock.advance(by: 60)
        let phone = servicePhone()
        _ = try await identity.register(
            phone: phone, password: password, displayName: "R", device: "d", handle: nil, address: address)
        // Logins: two per phone number, then one every 10 s (wrong passwords count too).
        for _ in 0..<2 {
            await #expect(throws: IdentityError.wrongCredentials) {
                _ = try await identity.login(phone: phone, password: "wrong one!", device: "d", address: "x")
            }
        }
        do {
            _ = try await identity.login(phone: phone, password: password, device: "d", address: "x")
            Issue.record("a third login within the burst was accepted")
        } catch {
            guard case .loginsLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 9_000 && retryAfter <= 10_000)
            #expect(error.wire.message == "too many login attempts; retry later")
        }
        clock.advance(by: 10)
        _ = try await identity.login(phone: phone, password: password, device: "d", address: "x")
    }

    @Test func sessionsAreTheirOwnersToListAndRevoke() async throws {
        let identity = try service()
        let phone = servicePhone()
        let first = try await register(identity, "Ann", phone: phone)
        let second = try await identity.login(phone: phone, password: password, device: "tablet", address: "s")
        let bob = try await register(identity, "Bob")
        let me = Caller(userId: first.userId, sessionId: first.sessionId)
        let listed = try await identity.sessions(me)
        #expect(listed.sessions.map(\.sessionId) == [second.sessionId, first.sessionId])
        #expect(listed.sessions.map(\.current) == [false, true])
        #expect(listed.sessions.first?.device == "tablet")
        // Someone else's session is no session of yours.
        await #expect(throws: IdentityError.noSuchSession) {
            try await identity.revoke(Caller(userId: bob.userId, sessionId: bob.sessionId), sessionId: first.sessionId)
        }
        try await identity.revoke(me, sessionId: second.sessionId)
        await #expect(throws: IdentityError.invalidToken) {
            _ = try await identity.authenticate(token: second.sessionToken)
        }
        await #expect(throws: IdentityError.noSuchSession) {
            try await identity.revoke(me, sessionId: second.sessionId)
        }
        try await identity.logout(me)
        await #expect(throws: IdentityError.invalidToken) {
            _ = try await identity.authenticate(token: first.sessionToken)
        }
        // Logging out twice is not an error.
        try await identity.logout(me)
    }

    @Test func aSuspendedAccountNeitherLogsInNorAuthenticates() async throws {
        let identity = try service()
        let phone = servicePhone()
        let ann = try await register(identity, "Ann", phone: phone)
        try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(cached: "UPDATE users SET suspended_at = now() WHERE id = $1", [.int(ann.userId)])
        }
        await #expect(throws: IdentityError.suspended) { _ = try await identity.authenticate(token: ann.sessionToken) }
        await #expect(throws: IdentityError.suspended) {
            _ = try await identity.login(phone: phone, password: password, device: "d", address: "z")
        }
        #expect(IdentityError.suspended.wire == ServiceError(.accountSuspended, "this account is suspended"))
    }

    @Test func profilesAreSeenByTheirOwnerFriendsAndNobodyElse() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed, blocked) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("zed"), try await db.user("blk")
        )
        try await db.befriend(ann, bob)
        try await db.befriend(ann, blocked)
        try await db.pool.withConnection { db in
            try db.execute(
                cached: "INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)", [.int(ann), .int(blocked)])
        }
        let identity = try service()
        let own = try await identity.profile(viewer: ann, userId: nil, handle: nil).profile
        #expect(own.userId == ann && own.phone != nil && own.role == "user" && own.timeZone == "UTC")
        let friend = try await identity.profile(viewer: bob, userId: ann, handle: nil).profile
        #expect(friend.displayName == "ann" && friend.phone == nil && friend.role == nil && friend.timeZone == nil)
        // A stranger (no handle, not a friend) and a blocked friend get the answer of a missing user.
        await #expect(throws: IdentityError.noSuchUser) {
            _ = try await identity.profile(viewer: zed, userId: ann, handle: nil)
        }
        await #expect(throws: IdentityError.noSuchUser) {
            _ = try await identity.profile(viewer: blocked, userId: ann, handle: nil)
        }
        await #expect(throws: IdentityError.noSuchUser) {
            _ = try await identity.profile(viewer: ann, userId: nil, handle: "no_such_handle_here")
        }
        // By handle, a public profile.
        let handle = "pro_\(Int.random(in: 100_000...999_999))"
        try await db.pool.withConnection { db in
            try db.execute(cached: "UPDATE users SET handle = $2 WHERE id = $1", [.int(ann), .text(handle)])
        }
        #expect(try await identity.profile(viewer: zed, userId: nil, handle: handle).profile.userId == ann)
    }

    @Test func aNewNameIsToldToFriendsAndOwnDevicesWithoutThePhone() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let identity = try service()
        let me = Caller(userId: ann)
        let (renamed, approved, events) = try await identity.updateProfile(
            me, displayName: "  Annie ", timeZone: "Europe/Paris", locale: "fr-FR", social: SocialProfileChange())
        #expect(renamed.profile.displayName == "Annie")
        #expect(renamed.profile.timeZone == "Europe/Paris" && renamed.profile.locale == "fr-FR")
        #expect(approved.isEmpty)
        let told = try #require(events.first)
        #expect(events.count == 1)
        #expect(told.name == "profile.updated")
        #expect(Set(told.users) == [ann, bob])
        #expect(!told.users.contains(zed))
        let shown = try #require((told.event as? ServerEvent.ProfileUpdated)?.profile)
        #expect(shown.displayName == "Annie" && shown.phone == nil && shown.timeZone == nil)
        // Only the zone: nobody told.
        let (_, _, none) = try await identity.updateProfile(
            me, displayName: nil, timeZone: "UTC", locale: nil, social: SocialProfileChange())
        #expect(none.isEmpty)
        await #expect(throws: IdentityError.nothingToUpdate) {
            _ = try await identity.updateProfile(
                me, displayName: nil, timeZone: nil, locale: nil, social: SocialProfileChange())
        }
        await #expect(throws: IdentityError.unknownTimeZone) {
            _ = try await identity.updateProfile(
                me, displayName: nil, timeZone: "Mars/Olympus", locale: nil, social: SocialProfileChange())
        }
        await #expect(throws: IdentityError.invalidLocale) {
            _ = try await identity.updateProfile(
                me, displayName: nil, timeZone: nil, locale: "english", social: SocialProfileChange())
        }
        do {
            _ = try await identity.updateProfile(
                me, displayName: nil, timeZone: nil, locale: nil, social: SocialProfileChange(dmPolicy: "nobody"))
            Issue.record("an unknown dm_policy was accepted")
        } catch {
            #expect(error.wire == ServiceError(.badRequest, "dm_policy must be friends, mutuals or anyone"))
        }
    }

    @Test func thePasswordCheckOfDeletionIsLimitedLikeLogins() async throws {
        let identity = try service()
        let phone = servicePhone()
        let ann = try await register(identity, "Ann", phone: phone)
        try await identity.verifyPassword(userId: ann.userId, password: password, address: "p")
        await #expect(throws: IdentityError.wrongPassword) {
            try await identity.verifyPassword(userId: ann.userId, password: "nope nope", address: "p")
        }
        // The phone number's bucket (burst 2) is spent.
        do {
            try await identity.verifyPassword(userId: ann.userId, password: password, address: "p")
            Issue.record("a third attempt within the burst was accepted")
        } catch {
            guard case .passwordAttemptsLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 0 && retryAfter <= 10_000)
            #expect(error.wire.message == "too many attempts; retry later")
        }
        clock.advance(by: 10)
        try await identity.verifyPassword(userId: ann.userId, password: password, address: "p")
        // No such (live) account: the same answer as a wrong password.
        await #expect(throws: IdentityError.wrongPassword) {
            try await identity.verifyPassword(userId: -1, password: password, address: "p")
        }
    }
}
