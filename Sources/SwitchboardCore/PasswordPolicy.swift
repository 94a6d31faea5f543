//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a password is refused (the `reason` of `weak_password`).
public enum PasswordWeakness: String, Sendable, Equatable {
    case tooShort = "too_short"
    case singleCharacter = "single_character"
    case sequence = "sequence"
    case common = "common"
    case containsPhone = "contains_phone"
}

/// The password rules: at least 6 characters, not one repeated character, not a simple sequence or
/// keyboard run, not a common password, not containing the phone number's digits.
public enum PasswordPolicy {
    public static let minLength = 6
    /// Longer passwords are a bad request (bounded hashing cost).
    public static let maxLength = 1024

    static let keyboardRows = ["qwertyuiop", "asdfghjkl", "zxcvbnm", "1234567890", "qwertzuiop", "azertyuiop"]

    /// nil when acceptable.
    public static func check(_ password: String, phone: String?) -> PasswordWeakness? {
        guard password.count >= minLength else { return .tooShort }
        let lower = password.lowercased()
        if Set(lower).count == 1 { return .singleCharacter }
        if isSequence(lower) { return .sequence }
        if CommonPasswords.set.contains(lower) { return .common }
        if let phone {
            let digits = phone.filter(\.isNumber)
            // The national part (last 7+ digits) or the whole number inside the password.
            if digits.count >= 7, lower.contains(String(digits.suffix(7))) { return .containsPhone }
        }
        return nil
    }

    /// Ascending or descending runs of letters or digits (`abcdef`, `987654`) and keyboard-row runs.
    static func isSequence(_ s: String) -> Bool {
        let scalars = s.unicodeScalars.map(\.value)
        if scalars.count >= 2 {
            let step = Int64(scalars[1]) - Int64(scalars[0])
            if abs(step) == 1 && zip(scalars, scalars.dropFirst()).allSatisfy({ Int64($1) - Int64($0) == step }) { return true }
        }
        for row in keyboardRows {
            if row.contains(s) || String(row.reversed()).contains(s) { return true }
        }
        return false
    }
}
