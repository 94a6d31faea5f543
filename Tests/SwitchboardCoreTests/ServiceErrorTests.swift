//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Testing

/// Issue 14, item 5: `ServiceError` keeps the error it was made from, outside equality and the wire.
@Suite("ServiceError")
struct ServiceErrorTests {
    struct Cause: Error, CustomStringConvertible {
        var description: String { "disk on fire" }
    }

    @Test func fromKeepsTheCauseOfAnInternalError() {
        let error = ServiceError.from(Cause())
        #expect(error.code == .internal)
        #expect(error.message == "internal error")
        #expect(error.underlying is Cause)
        #expect(String(describing: error.underlying!) == "disk on fire")
    }

    @Test func aServiceErrorPassesThroughUnchanged() {
        let refused = ServiceError(.notFriends, "not friends", underlying: Cause())
        let again = ServiceError.from(refused)
        #expect(again == refused)
        #expect(again.underlying is Cause)
    }

    @Test func theCauseIsNotPartOfEquality() {
        #expect(
            ServiceError(.internal, "internal error", underlying: Cause()) == ServiceError(.internal, "internal error"))
        #expect(ServiceError(.internal, "internal error") != ServiceError(.unavailable, "internal error"))
    }
}
