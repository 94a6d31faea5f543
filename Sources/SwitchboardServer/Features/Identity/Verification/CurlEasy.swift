//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CCurl

/// One libcurl easy handle, owned (freed in `deinit`), used by one thread at a time: the HTTP gateway makes one
/// per request on its own queue (`HTTPSMSGateway`), never on a loop or the cooperative pool. `curl_easy_perform`
/// blocks until the answer or the timeout.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// libcurl's global set-up, once per process, before the first handle (not thread-safe itself).
    private static let globalInit: Bool = sb_curl_global_init() == CURLE_OK

    /// A new handle, or nil when libcurl cannot make one.
    init?() {
        guard Self.globalInit, let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// POSTs `body` to `url` with `headers` (whole lines), HTTP/2 where TLS offers it, at most `timeout` seconds;
    /// the response status, or libcurl's error. Redirects are not followed; the body is not kept.
    func post(url: String, body: String, headers: [String], timeout: Double) -> Result<Int, SMSGatewayError> {
        for header in headers { headerList = curl_slist_append(headerList, header) }
        let milliseconds = max(1, Int(timeout * 1000))
        var code = sb_curl_setopt_string(handle, CURLOPT_URL, url)
        for (option, value) in [
            (CURLOPT_NOSIGNAL, 1), (CURLOPT_TIMEOUT_MS, milliseconds), (CURLOPT_CONNECTTIMEOUT_MS, milliseconds),
            (CURLOPT_HTTP_VERSION, sb_curl_http_version_2tls()), (CURLOPT_POST, 1),
            (CURLOPT_POSTFIELDSIZE, body.utf8.count),
        ] where code == CURLE_OK {
            code = sb_curl_setopt_long(handle, option, value)
        }
        if code == CURLE_OK { code = sb_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, body) }
        if code == CURLE_OK { code = sb_curl_setopt_list(handle, CURLOPT_HTTPHEADER, headerList) }
        if code == CURLE_OK { code = sb_curl_discard_body(handle) }
        if code == CURLE_OK { code = curl_easy_perform(handle) }
        guard code == CURLE_OK else {
            return .failure(SMSGatewayError(description: "libcurl: " + String(cString: curl_easy_strerror(code))))
        }
        var status = 0
        _ = sb_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(status)
    }
}
