//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import SwitchboardProtocol
import Testing

@Suite("Invariant violations carry a cause")
struct InvariantViolationTests {
    @Test func anInvariantAnswerIsInternalOnTheWireAndNamesItsCauseForTheLog() throws {
        let error = ServiceError.invariant("a message insert returned no row")
        #expect(error.code == .internal)
        #expect(error.message == "internal error")
        let cause = try #require(error.underlying as? InvariantViolation)
        #expect(cause.what == "a message insert returned no row")
        #expect(cause.location.hasPrefix("SwitchboardDomainTests/InvariantViolationTests.swift:"))
        #expect("\(cause)".contains("a message insert returned no row"))
    }

    @Test func theWireMessageCanBeKeptWhileTheCauseIsAdded() throws {
        let error = ServiceError.invariant("3 bytes of 5", message: "upload chunks do not add up")
        #expect(error == ServiceError(.internal, "upload chunks do not add up"))
        #expect((error.underlying as? InvariantViolation)?.what == "3 bytes of 5")
    }
}
