//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Sends a verification code to a phone (`SMSGatewaySettings.Kind`). Called off the loops, once per code.
protocol SMSGateway: Sendable {
    /// Sends `text` (which contains `code`) to `phone` (E.164); throws when the gateway did not take it.
    func send(phone: String, code: String, text: String) async throws(SMSGatewayError)
}
