//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Phone numbers normalised to E.164: `+`, then 8 to 15 ASCII digits, the first 1-9.
///
/// Accepted input: ASCII digits with spaces, dashes, dots, parentheses and no-break spaces between
/// them; a leading `+` or `00` for the international prefix. A number without one is national: with a
/// `defaultCountryCode` its trunk `0` (if any; `1` for 11-digit numbers with country code `1`, as every
/// North American number has 10 national digits) is dropped and the country code put in front; without
/// one it is refused. Letters (vanity numbers), other digits (e.g. Arabic-Indic) and any other
/// character are refused. The result is what the server stores and compares.
public enum PhoneNumber {
    /// Why a number was refused (answered `invalid_phone`).
    public enum Invalid: Error, Equatable, Sendable {
        /// No digits at all.
        case empty
        /// A character other than ASCII digits, separators and one leading `+`.
        case characters
        /// Fewer than 8 or more than 15 digits, or a country code starting with 0.
        case length
        /// A national number and no default country calling code configured.
        case noCountryCode
    }

    /// Longest input looked at (anything longer is refused before scanning).
    public static let maxInputLength = 64

    /// Normalises `raw` to E.164.
    /// - Parameters:
    ///   - raw: the number as typed.
    ///   - defaultCountryCode: the calling code (digits, no `+`, e.g. `"1"`, `"44"`) for national numbers.
    /// - Returns: `+` and 8-15 digits.
    /// - Throws: `PhoneNumber.Invalid`.
    public static func normalize(_ raw: String, defaultCountryCode: String? = nil) throws(Invalid) -> String {
        guard raw.utf8.count <= maxInputLength else { throw .length }
        var digits: [UInt8] = []
        var plus = false
        var seenAnything = false
        for scalar in raw.unicodeScalars {
            switch scalar {
            case "0"..."9":
                digits.append(UInt8(scalar.value))
                seenAnything = true
            case "+" where !seenAnything:
                plus = true
                seenAnything = true
            case " ", "-", ".", "(", ")", "\u{00A0}", "\t", "\n", "\r":
                continue
            default:
                throw .characters
            }
        }
        guard !digits.isEmpty else { throw .empty }
        if !plus && digits.starts(with: [0x30, 0x30]) {  // "00"
            plus = true
            digits.removeFirst(2)
        }
        if !plus {
            guard let country = defaultCountryCode, (1...3).contains(country.utf8.count),
                country.utf8.allSatisfy({ (0x30...0x39).contains($0) }), country.utf8.first != 0x30
            else { throw .noCountryCode }
            if digits.first == 0x30 {
                digits.removeFirst()  // national trunk prefix
            } else if country == "1" && digits.count == 11 && digits.first == 0x31 {
                digits.removeFirst()  // North America: the trunk prefix is 1 and national numbers have 10 digits
            }
            digits = Array(country.utf8) + digits
        }
        guard (8...15).contains(digits.count), digits.first != 0x30 else { throw .length }
        return "+" + String(decoding: digits, as: UTF8.self)
    }
}
