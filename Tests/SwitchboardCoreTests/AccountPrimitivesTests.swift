//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardCore

@Suite struct PhoneNumberTests {
    @Test func normalisesFormats() throws {
        #expect(try PhoneNumber.normalize("+1 (555) 123-4567") == "+15551234567")
        #expect(try PhoneNumber.normalize("0044 20.7946.0958") == "+442079460958")
        #expect(try PhoneNumber.normalize("555 123 4567", defaultCountryCode: "1") == "+15551234567")
        #expect(try PhoneNumber.normalize("030 1234567", defaultCountryCode: "49") == "+49301234567")
    }

    @Test func refusals() {
        #expect(throws: PhoneNumber.Invalid.empty) { try PhoneNumber.normalize("  ") }
        #expect(throws: PhoneNumber.Invalid.characters) { try PhoneNumber.normalize("+1555CALLNOW") }
        #expect(throws: PhoneNumber.Invalid.characters) { try PhoneNumber.normalize("1+555") }
        #expect(throws: PhoneNumber.Invalid.length) { try PhoneNumber.normalize("+1234") }
        #expect(throws: PhoneNumber.Invalid.length) { try PhoneNumber.normalize("+1234567890123456") }
        #expect(throws: PhoneNumber.Invalid.noCountryCode) { try PhoneNumber.normalize("5551234567") }
    }
}

@Suite struct PasswordPolicyTests {
    @Test func reasons() {
        #expect(PasswordPolicy.check("abc12", phone: nil) == .tooShort)
        #expect(PasswordPolicy.check("ééééééé", phone: nil) == .singleCharacter)
        #expect(PasswordPolicy.check("123456789", phone: nil) == .sequence)
        #expect(PasswordPolicy.check("fedcba", phone: nil) == .sequence)
        #expect(PasswordPolicy.check("asdfgh", phone: nil) == .sequence)
        #expect(PasswordPolicy.check("PassWord1", phone: nil) == .common)
        #expect(PasswordPolicy.check("my5551234567pw", phone: "+15551234567") == .containsPhone)
        #expect(PasswordPolicy.check("correct horse 42", phone: "+15551234567") == nil)
        #expect(CommonPasswords.set.count > 400)
    }
}

@Suite struct SessionTokenTests {
    @Test func formatAndHash() {
        let token = SessionToken.generate()
        #expect(token.string.count == 43)
        #expect(token.string.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(SessionToken.hash(of: token.string) == token.hash)
        #expect(token.hash.count == 32)
        #expect(SessionToken.generate().string != token.string)
        #expect(SessionToken.hash(of: "short") == nil)
        #expect(SessionToken.hash(of: String(token.string.dropLast()) + "!") == nil)
    }
}

@Suite struct RateLimiterTests {
    @Test func burstRefillAndExactRetryAfter() {
        var limiter = RateLimiter<String>(capacity: 3, refillPerSecond: 1)
        for _ in 0..<3 { #expect(limiter.attempt("a", now: 0) == .allowed) }
        #expect(limiter.attempt("a", now: 0) == .limited(retryAfterNanoseconds: 1_000_000_000))
        #expect(limiter.attempt("a", now: 400_000_000) == .limited(retryAfterNanoseconds: 600_000_000))
        #expect(limiter.attempt("a", now: 1_000_000_000) == .allowed)
        #expect(limiter.attempt("b", now: 1_000_000_000) == .allowed)  // keys are independent
    }

    @Test func memoryIsBounded() {
        var limiter = RateLimiter<Int>(capacity: 1, refillPerSecond: 1, maxKeys: 10)
        for key in 0..<100 { _ = limiter.attempt(key, now: UInt64(key)) }
        #expect(limiter.count <= 10)
    }
}

@Suite struct PasswordHasherTests {
    @Test func argon2idRoundTrip() async throws {
        let pool = PasswordHasherPool(workers: 2)
        let encoded = try await pool.hash("correct horse 42")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try await pool.verify("correct horse 42", encoded: encoded))
        #expect(try await !pool.verify("wrong", encoded: encoded))
        #expect(!pool.needsRehash(encoded))
        try await pool.dummyVerify("anything")
    }

    @Test func saturationThrowsOverloaded() async throws {
        var cheap = PasswordHashParameters()
        cheap.memoryKiB = 4096
        let pool = PasswordHasherPool(workers: 1, maxWaiting: 1, parameters: cheap)
        var outcomes: [Bool] = []
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do { _ = try await pool.hash("pw"); return true } catch { return false }
                }
            }
            for await ok in group { outcomes.append(ok) }
        }
        #expect(outcomes.contains(false))
        #expect(outcomes.contains(true))
    }
}
