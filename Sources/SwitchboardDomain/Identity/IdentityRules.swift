//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

/// The rules of accounts' fields, checked before any database work: names, phone numbers, handles, time zones,
/// locales and the password of `register` (docs/protocol.md "Accounts").
public enum IdentityRules {
    /// Display names: at most 64 characters and 256 UTF-8 bytes, one line, no control characters.
    public static let displayNameRule = TextRule(field: "display_name", maxCharacters: 64, maxBytes: 256)
    /// Device names: at most 64 characters and 256 UTF-8 bytes, one line, no control characters.
    public static let deviceRule = TextRule(field: "device", maxCharacters: 64, maxBytes: 256)

    /// `raw` in E.164 (national numbers take `defaultCountryCode`); `invalidPhone` otherwise.
    public static func phone(_ raw: String, defaultCountryCode: String?) throws(IdentityError) -> String {
        do {
            return try PhoneNumber.normalize(raw, defaultCountryCode: defaultCountryCode)
        } catch {
            throw .invalidPhone
        }
    }

    /// A name as stored: white space around it trimmed, then checked against `rule`.
    public static func name(_ raw: String, rule: TextRule) throws(IdentityError) -> String {
        // The byte limit first: an oversized string is refused before any scan (4x: trimming removes little).
        guard raw.utf8.count <= rule.maxBytes * 4 else {
            throw .nameTooLong(field: rule.field, maxBytes: rule.maxBytes)
        }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = StoredText.problem(name, rule) { throw .invalidText(problem) }
        return name
    }

    /// A new account's password: at most `PasswordPolicy.maxLength` bytes, no U+0000, not weak for this `phone`.
    public static func newPassword(_ password: String, phone: String) throws(IdentityError) {
        guard password.utf8.count <= PasswordPolicy.maxLength else { throw .passwordTooLong }
        // Hashed, not stored, and hashed with its length (U+0000 would not cut it short); refused anyway, as
        // other clients' C code would cut it.
        guard !StoredText.containsNUL(password) else { throw .passwordContainsNUL }
        if let weakness = PasswordPolicy.check(password, phone: phone) { throw .weakPassword(weakness) }
    }

    /// Whether `handle` may be chosen (taken or not aside): `handleReserved` or `invalidHandle` otherwise.
    public static func handle(_ handle: String) throws(IdentityError) {
        switch Handle.validate(handle) {
        case nil: return
        case .reserved: throw .handleReserved
        default: throw .invalidHandle
        }
    }

    /// An IANA time zone name Foundation knows (kept as given); `unknownTimeZone` otherwise.
    public static func timeZone(_ name: String) throws(IdentityError) -> String {
        guard name.utf8.count <= 64, !name.isEmpty, TimeZone(identifier: name) != nil else { throw .unknownTimeZone }
        return name
    }

    /// A BCP 47 language tag (`fr`, `fr-FR`, `zh-Hant-TW`): a 2-3 letter language, then subtags of 1-8 letters or
    /// digits; at most 35 characters. `invalidLocale` otherwise.
    public static func locale(_ tag: String) throws(IdentityError) -> String {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard tag.utf8.count <= 35, let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({ part in
                (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            })
        else { throw .invalidLocale }
        return tag
    }
}
