//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Phone numbers normalised to E.164 (`+` and 8 to 15 digits, the first 1-9).
public enum PhoneNumber {
    /// Why a number was refused.
    public enum Invalid: Error, Equatable, Sendable {
        case empty
        case characters
        case length
        case noCountryCode
    }

    /// Accepts spaces, dashes, dots and parentheses, a leading `00` for `+`; a number without a country
    /// prefix takes `defaultCountryCode` (its national trunk `0` dropped).
    public static func normalize(_ raw: String, defaultCountryCode: String? = nil) throws(Invalid) -> String {
        var digits = ""
        var plus = false
        for (i, c) in raw.trimmingWhitespace().enumerated() {
            switch c {
            case "+" where i == 0: plus = true
            case "0"..."9": digits.append(c)
            case " ", "-", ".", "(", ")", "\u{00A0}": continue
            default: throw .characters
            }
        }
        guard !digits.isEmpty else { throw .empty }
        if !plus && digits.hasPrefix("00") {
            plus = true
            digits.removeFirst(2)
        }
        if !plus {
            guard let country = defaultCountryCode, !country.isEmpty, country.allSatisfy(\.isNumber) else { throw .noCountryCode }
            if digits.hasPrefix("0") { digits.removeFirst() }
            digits = country + digits
        }
        guard (8...15).contains(digits.count), digits.first != "0" else { throw .length }
        return "+" + digits
    }
}

extension String {
    func trimmingWhitespace() -> Substring {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}
