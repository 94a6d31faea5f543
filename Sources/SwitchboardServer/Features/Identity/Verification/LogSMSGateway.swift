//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging

/// The development gateway (`--sms-gateway log`): writes the code to the server log at notice level, the phone
/// number masked but for its last two digits. The only place a code is ever logged.
struct LogSMSGateway: SMSGateway {
    let logger: Logger

    func send(phone: String, code: String, text: String) async throws(SMSGatewayError) {
        logger.notice(
            "verification code (--sms-gateway log)", metadata: ["phone": "\(Self.masked(phone))", "code": "\(code)"])
    }

    /// `+1555123467` -> `+********67`.
    static func masked(_ phone: String) -> String {
        let characters = Array(phone)
        return String(
            characters.enumerated().map { index, c in
                index >= characters.count - 2 || (index == 0 && c == "+") ? c : "*"
            })
    }
}
