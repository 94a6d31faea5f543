//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One call of the mix, from the invitation to its end.
struct CallPlan: Sendable {
    let callId: String
    let caller: Int
    let callee: Int
    let outcome: CallOutcome
    let invited: UInt64
    /// The server's id of the call (`callId` is the caller's own name for it, which only the caller may use).
    var serverId: String?
    var rung = false
    var acceptSent: UInt64 = 0
    var declineSent: UInt64 = 0
    var hangupSent: UInt64 = 0
    var signalsSent: [UInt64] = []
    var signalsReceived = 0
    var callerEnded = false
    var calleeEnded = false
}
