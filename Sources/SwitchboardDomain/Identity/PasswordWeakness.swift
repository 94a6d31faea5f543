//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a password is refused (the `reason` of a `weak_password` error).
public enum PasswordWeakness: String, Sendable, Equatable, CaseIterable {
    /// Fewer than `PasswordPolicy.minLength` characters.
    case tooShort = "too_short"
    /// One character repeated (`aaaaaa`).
    case singleCharacter = "single_character"
    /// An ascending or descending run of letters or digits, or a keyboard-row run (`123456`, `fedcba`, `qwerty`).
    case sequence = "sequence"
    /// In the built-in list of common passwords (case-insensitive).
    case common = "common"
    /// Contains the account's phone number (its last 7 digits).
    case containsPhone = "contains_phone"
}
