//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import Testing

@testable import SwitchboardServer

/// The SMS gateways' pure parts: the body template, the log gateway's masking, the codes.
@Suite("SMS gateway")
struct SMSGatewayTests {
    @Test func jsonTemplateValuesAreEscaped() {
        let body = SMSBodyTemplate.render(
            #"{"to":"{phone}","msg":"{text}","c":"{code}","x":"{other}"}"#, phone: "+15551234567", code: "012345",
            text: "a \"quoted\" \\ line\nnext {code}", as: .json)
        #expect(
            body == #"{"to":"+15551234567","msg":"a \"quoted\" \\ line\nnext {code}","c":"012345","x":"{other}"}"#)
    }

    @Test func formTemplateValuesAreEncoded() {
        let body = SMSBodyTemplate.render(
            "To={phone}&Body={text}", phone: "+15551234567", code: "1", text: "code: 1 & é", as: .form)
        #expect(body == "To=%2B15551234567&Body=code%3A%201%20%26%20%C3%A9")
    }

    @Test func theLogGatewayMasksAllButTheLastTwoDigits() {
        #expect(LogSMSGateway.masked("+15551234567") == "+*********67")
    }

    @Test func codesAreSixDigitsAndStoredSalted() {
        let a = VerificationCode.generate()
        let b = VerificationCode.generate()
        #expect(a.digits.count == 6 && a.digits.allSatisfy { $0.isASCII && $0.isNumber })
        #expect(a.salt != b.salt && a.hash != VerificationCode.hash(a.digits, salt: b.salt))
        #expect(VerificationCode.matches(a.digits, salt: a.salt, hash: a.hash))
        #expect(!VerificationCode.matches(a.digits + "0", salt: a.salt, hash: a.hash))
        #expect(!"\(a)".contains(a.digits))
    }
}
