//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why an SMS gateway did not take a message (logged without the code; the client gets `unavailable`).
struct SMSGatewayError: Error, CustomStringConvertible {
    let description: String
}
