//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The password rules for `register`: at least 6 characters, not one repeated character, not a simple
/// sequence or keyboard run, not a common password, not containing the phone number's digits.
/// Passwords longer than `maxLength` UTF-8 bytes are a `bad_request` (bounded hashing cost), checked by
/// the caller before `check`.
public enum PasswordPolicy {
    /// Fewest characters (grapheme clusters, so `é` counts once).
    public static let minLength = 6
    /// Most UTF-8 bytes accepted at all.
    public static let maxLength = 1024
    /// Digits of the phone number's end looked for inside the password.
    public static let phoneDigitsChecked = 7

    static let keyboardRows = [
        "qwertyuiop", "asdfghjkl", "zxcvbnm", "1234567890", "qwertzuiop", "yxcvbnm", "azertyuiop", "qsdfghjklm",
        "wxcvbn", "1qaz2wsx3edc4rfv", "qazwsxedcrfv", "!@#$%^&*()",
    ]

    /// Checks a password for `register` (and password changes).
    /// - Parameters:
    ///   - password: the password as given.
    ///   - phone: the account's phone number (any format; its digits are used), if known.
    /// - Returns: the first rule the password breaks, in the order of `PasswordWeakness`, or nil.
    public static func check(_ password: String, phone: String?) -> PasswordWeakness? {
        guard password.count >= minLength else { return .tooShort }
        let lower = password.lowercased()
        if Set(lower).count == 1 { return .singleCharacter }
        if isSequence(lower) { return .sequence }
        if CommonPasswords.set.contains(lower) { return .common }
        if let phone {
            let phoneDigits = phone.unicodeScalars.filter { ("0"..."9").contains($0) }
            if phoneDigits.count >= phoneDigitsChecked {
                // Separators inside the password do not hide the number: compare digits only.
                let passwordDigits = String(
                    String.UnicodeScalarView(password.unicodeScalars.filter { ("0"..."9").contains($0) }))
                if passwordDigits.contains(String(String.UnicodeScalarView(phoneDigits.suffix(phoneDigitsChecked)))) {
                    return .containsPhone
                }
            }
        }
        return nil
    }

    /// Ascending or descending runs of letters or digits (`abcdef`, `987654`) and keyboard-row runs
    /// (`qwerty`, `ytrewq`, `asdfgh`) over the whole (lower-cased) password.
    static func isSequence(_ s: String) -> Bool {
        let scalars = s.unicodeScalars.map(\.value)
        if scalars.count >= 2, scalars.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }) {
            let step = Int64(scalars[1]) - Int64(scalars[0])
            if abs(step) == 1 && zip(scalars, scalars.dropFirst()).allSatisfy({ Int64($1) - Int64($0) == step }) {
                return true
            }
        }
        for row in keyboardRows {
            if row.contains(s) || String(row.reversed()).contains(s) { return true }
        }
        return false
    }
}
