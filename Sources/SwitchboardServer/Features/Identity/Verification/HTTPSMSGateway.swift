//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch

/// The production gateway (`--sms-gateway http`): one POST per code to `--sms-gateway-url` with the body template
/// filled in, through libcurl on the queue `switchboard.sms` (concurrent: each blocking `curl_easy_perform` holds
/// one of its threads for at most `--sms-gateway-timeout`, never a loop or the cooperative pool), bridged with a
/// continuation. Any answer outside 2xx, a timeout or a connection failure is a failure.
final class HTTPSMSGateway: SMSGateway {
    let settings: SMSGatewaySettings
    private let queue = DispatchQueue(label: "switchboard.sms", attributes: .concurrent)

    init(_ settings: SMSGatewaySettings) {
        self.settings = settings
    }

    func send(phone: String, code: String, text: String) async throws(SMSGatewayError) {
        let settings = self.settings
        let body = SMSBodyTemplate.render(
            settings.bodyTemplate, phone: phone, code: code, text: text, as: settings.contentType)
        var headers = ["Content-Type: " + settings.contentType.mediaType, "Expect:"]
        if !settings.authHeader.isEmpty { headers.append(settings.authHeader) }
        let sent = headers
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Int, SMSGatewayError>, Never>) in
            queue.async {
                guard let curl = CurlEasy() else {
                    continuation.resume(returning: .failure(SMSGatewayError(description: "libcurl: no handle")))
                    return
                }
                continuation.resume(
                    returning: curl.post(url: settings.url, body: body, headers: sent, timeout: settings.timeout))
            }
        }
        switch outcome {
        case .success(let status) where (200..<300).contains(status): return
        case .success(let status): throw SMSGatewayError(description: "the gateway answered HTTP \(status)")
        case .failure(let error): throw error
        }
    }
}
