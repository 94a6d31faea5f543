//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL
import Testing

@testable import SwitchboardDomain

@Suite struct SessionTokenTests {
    @Test func format() {
        var seen = Set<String>()
        for _ in 0..<1_000 {
            let token = SessionToken.generate()
            #expect(token.string.utf8.count == 43)
            #expect(token.string.utf8.allSatisfy { SessionToken.alphabet.contains($0) })
            #expect(token.hash.count == 32)
            #expect(SessionToken.hash(of: token.string) == token.hash)
            seen.insert(token.string)
        }
        #expect(seen.count == 1_000)
    }

    @Test func hashIsSHA256OfTheTokenBytes() {
        // 32 zero bytes are 43 "A"s; SHA-256 of 32 zero bytes is a known vector.
        let zeros = String(repeating: "A", count: 43)
        let expected = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        #expect(
            SessionToken.hash(of: zeros).map { $0.map { String($0, radix: 16).leftPadded(2) }.joined() } == expected)
        #expect(SessionToken.base64url([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(SessionToken.base64url([0xFB, 0xFF]) == "-_8")
        #expect(SessionToken.base64url([0xFB]) == "-w")
        #expect(SessionToken.decodeBase64url("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test func malformedTokens() {
        let token = SessionToken.generate().string
        let body = String(token.dropLast())
        let tail = String(token.dropFirst())
        var refused: [String] = ["", "short", body, token + "A", body + "!", body + "="]
        refused += ["+" + tail, "/" + tail, " " + tail]
        refused.append(String(repeating: "A", count: 42) + "B")  // non-canonical: unused low bits set
        refused.append(String(repeating: "é", count: 43))
        for t in refused {
            #expect(SessionToken.hash(of: t) == nil, "\(t)")
        }
    }

    @Test func descriptionRedacts() {
        let token = SessionToken.generate()
        #expect(!"\(token)".contains(token.string))
        #expect(!String(describing: token).contains(token.string))
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
