//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardDomain

@Suite struct PhoneNumberTests {
    static let valid: [(input: String, country: String?, expected: String)] = [
        ("+1 (555) 123-4567", nil, "+15551234567"),
        ("+15551234567", nil, "+15551234567"),
        ("+44 20 7946 0958", nil, "+442079460958"),
        ("0044 20 7946 0958", nil, "+442079460958"),
        ("00 1 555.123.4567", nil, "+15551234567"),
        ("+33 6 12 34 56 78", nil, "+33612345678"),
        ("+86 138-0013-8000", nil, "+8613800138000"),
        (" \t+1 555 123 4567\n", nil, "+15551234567"),
        ("+1\u{00A0}555\u{00A0}1234567", nil, "+15551234567"),
        ("+12345678", nil, "+12345678"),  // 8 digits: shortest
        ("+123456789012345", nil, "+123456789012345"),  // 15 digits: longest
        ("555-123-4567", "1", "+15551234567"),
        ("(555) 123 4567", "1", "+15551234567"),
        ("030 1234567", "49", "+49301234567"),  // trunk 0 dropped
        ("07911 123456", "44", "+447911123456"),
        ("+49 30 1234567", "1", "+49301234567"),  // an explicit prefix wins over the default
        ("0049 30 1234567", "44", "+49301234567"),
        ("1-555-123-4567", "1", "+15551234567"),  // North American trunk 1
        ("1 555 123 456", "1", "+11555123456"),  // 10 digits: no trunk prefix to drop
    ]

    @Test func validNumbers() throws {
        for (input, country, expected) in Self.valid {
            #expect(try PhoneNumber.normalize(input, defaultCountryCode: country) == expected, "\(input)")
        }
    }

    static let invalid: [(input: String, country: String?, error: PhoneNumber.Invalid)] = [
        ("", nil, .empty),
        ("   ", nil, .empty),
        ("()-. ", "1", .empty),
        ("+", nil, .empty),
        ("+1 555 CALL NOW", nil, .characters),
        ("+1-800-FLOWERS", nil, .characters),
        ("1+5551234567", nil, .characters),
        ("++15551234567", nil, .characters),
        ("+1 555 123 4567 ext 2", nil, .characters),
        ("+1555123456\u{FF17}", nil, .characters),  // fullwidth digit
        // Arabic-Indic digits
        ("+\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}\u{0667}\u{0668}\u{0669}", nil, .characters),
        ("+1\u{0301}5551234567", nil, .characters),  // combining mark on a digit
        ("+1555123456;DROP TABLE users", nil, .characters),
        ("+1234567", nil, .length),  // 7 digits
        ("+1234567890123456", nil, .length),  // 16 digits
        ("+0 555 123 4567", nil, .length),  // country code cannot start with 0
        ("0001234567890", nil, .length),  // 00 then 0...
        ("123456", "1", .length),  // too short even with the country
        ("5551234567", nil, .noCountryCode),
        ("5551234567", "", .noCountryCode),
        ("5551234567", "abc", .noCountryCode),
        ("5551234567", "0", .noCountryCode),
        ("5551234567", "+1", .noCountryCode),
        (String(repeating: "1", count: 65), nil, .length),
    ]

    @Test func invalidNumbers() {
        for (input, country, error) in Self.invalid {
            #expect(throws: error, "\(input.debugDescription)") {
                try PhoneNumber.normalize(input, defaultCountryCode: country)
            }
        }
    }

    @Test func normalisedNumbersAreFixedPoints() throws {
        for (input, country, _) in Self.valid {
            let once = try PhoneNumber.normalize(input, defaultCountryCode: country)
            #expect(try PhoneNumber.normalize(once) == once)
            #expect(once.first == "+" && once.dropFirst().allSatisfy { $0.isASCII && $0.isNumber })
        }
    }
}
