//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardDomain

@Suite struct PasswordPolicyTests {
    @Test func tooShort() {
        #expect(PasswordPolicy.check("", phone: nil) == .tooShort)
        #expect(PasswordPolicy.check("k9#Lm", phone: nil) == .tooShort)
        #expect(PasswordPolicy.check("k9#Lm2", phone: nil) == nil)  // 6 is enough
        // Characters, not bytes or scalars: five e + combining acute accents are five characters.
        #expect(PasswordPolicy.check(String(repeating: "e\u{0301}", count: 5), phone: nil) == .tooShort)
        #expect(PasswordPolicy.check("👍🏽x7#q", phone: nil) == .tooShort)
    }

    @Test func singleCharacter() {
        for p in ["aaaaaa", "AAAAAAA", "aAaAaA", "éééééé", "      ", "%%%%%%%%%%%%", "🙂🙂🙂🙂🙂🙂"] {
            #expect(PasswordPolicy.check(p, phone: nil) == .singleCharacter, "\(p)")
        }
    }

    @Test func sequences() {
        for p in [
            "123456", "1234567890", "234567", "987654", "9876543210", "abcdef", "ABCDEFGH", "fedcba", "uvwxyz",
            "zyxwvu",
            "qwerty", "QWERTY", "qwertyuiop", "poiuytrewq", "asdfgh", "asdfghjkl", "zxcvbnm", "mnbvcx", "ytrewq",
            "qwertz", "azerty", "1qaz2wsx3edc",
        ] {
            #expect(PasswordPolicy.check(p, phone: nil) == .sequence, "\(p)")
        }
        // Not runs: steps other than one, mixed classes, wrapped digits.
        for p in ["135791", "abc123xyz", "acegik", "12345x7", "qwe rty"] {
            #expect(PasswordPolicy.check(p, phone: nil) != .sequence, "\(p)")
        }
    }

    @Test func commonPasswordsCaseInsensitively() {
        for p in [
            "password", "PassWord1", "iloveyou", "DRAGON", "Football", "letmein", "monkey123", "trustno1", "Sunshine",
        ] {
            #expect(PasswordPolicy.check(p, phone: nil) == .common, "\(p)")
        }
        #expect(CommonPasswords.set.count >= 1_000)
        #expect(CommonPasswords.set.allSatisfy { $0 == $0.lowercased() })
        // Every listed password of 6 or more characters is refused, in any case.
        for p in CommonPasswords.set where p.count >= PasswordPolicy.minLength {
            #expect(PasswordPolicy.check(p.uppercased(), phone: nil) != nil, "\(p)")
        }
    }

    @Test func containsPhone() {
        let phone = "+15551234567"
        #expect(PasswordPolicy.check("my5551234567pw", phone: phone) == .containsPhone)
        #expect(PasswordPolicy.check("x+15551234567", phone: phone) == .containsPhone)
        #expect(PasswordPolicy.check("call 123-4567 now", phone: phone) == .containsPhone)  // separators do not hide it
        #expect(PasswordPolicy.check("call 123-4567 now", phone: nil) == nil)
        #expect(PasswordPolicy.check("call 123-4567 now", phone: "+442079460958") == nil)
        #expect(PasswordPolicy.check("zebra 555 rocket", phone: phone) == nil)  // a few digits are fine
    }

    @Test func acceptable() {
        for p in [
            "correct horse 42", "Tr0ub4dor&3", "k9#Lm2", "ünïcödé-pässwörd", "パスワードです",
            String(repeating: "ab", count: 512),
        ] {
            #expect(PasswordPolicy.check(p, phone: "+15551234567") == nil, "\(p)")
        }
        #expect(PasswordPolicy.maxLength == 1024 && PasswordPolicy.minLength == 6)
    }

    @Test func reasonsAreTheWireNames() {
        #expect(
            PasswordWeakness.allCases.map(\.rawValue) == [
                "too_short", "single_character", "sequence", "common", "contains_phone",
            ])
    }
}
