//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging

/// How verification codes are sent (`--sms-gateway`, `--sms-gateway-*`; docs/operations.md "Phone verification").
public struct SMSGatewaySettings: Sendable {
    /// The kind of gateway.
    public enum Kind: String, Sendable, CaseIterable {
        /// No gateway: `verification.start` and `password.reset` answer `unavailable`.
        case off
        /// Development: the code is written to the server log (notice level, the phone masked).
        case log
        /// An HTTP POST to `url` per code (libcurl).
        case http
    }

    /// How the body template's values are escaped, and the `Content-Type` sent.
    public enum ContentType: String, Sendable, CaseIterable {
        /// `application/json`: values JSON-escaped (the template writes the quotes).
        case json
        /// `application/x-www-form-urlencoded`: values percent-encoded.
        case form

        /// The header value.
        public var mediaType: String { self == .json ? "application/json" : "application/x-www-form-urlencoded" }
    }

    /// `--sms-gateway`.
    public var kind = Kind.off
    /// `--sms-gateway-url` (http).
    public var url = ""
    /// `--sms-gateway-body`: `{phone}`, `{code}` and `{text}` are replaced.
    public var bodyTemplate = #"{"to":"{phone}","text":"{text}"}"#
    /// `--sms-gateway-content-type`.
    public var contentType = ContentType.json
    /// `--sms-gateway-auth-header`: one header line sent as is (`Authorization: Basic ...`); never logged.
    public var authHeader = ""
    /// `--sms-gateway-timeout`, seconds for the whole request.
    public var timeout = 10.0

    public init() {}

    /// The gateway these settings describe (nil: off).
    func makeGateway(logger: Logger) -> (any SMSGateway)? {
        switch kind {
        case .off: return nil
        case .log: return LogSMSGateway(logger: logger)
        case .http: return HTTPSMSGateway(self)
        }
    }
}
