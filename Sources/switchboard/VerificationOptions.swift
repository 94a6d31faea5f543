//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Phone verification of `serve`: whether `register` needs a code sent to the phone, the codes' limits and the SMS
/// gateway (docs/operations.md "Phone verification"). Without `--database-url` (the embedded PostgreSQL, a
/// development set-up) the defaults are `required` with the `log` gateway; with it, `off` and `off`.
struct VerificationOptions: ParsableArguments {
    @Option(
        help: """
            Whether register needs a code sent to the phone: off, required, or auto (required with the embedded \
            PostgreSQL, off with --database-url). [env: SWITCHBOARD_PHONE_VERIFICATION]
            """)
    var phoneVerification: String = env("SWITCHBOARD_PHONE_VERIFICATION") ?? "auto"

    @Option(help: "Seconds a verification code stays valid. [env: SWITCHBOARD_VERIFICATION_CODE_TTL]")
    var verificationCodeTtl: Double = envValue("SWITCHBOARD_VERIFICATION_CODE_TTL", as: Double.self) ?? 600

    @Option(
        help: "Wrong codes before a code is dead. [env: SWITCHBOARD_VERIFICATION_ATTEMPTS_PER_CODE]")
    var verificationAttemptsPerCode: Int = envValue("SWITCHBOARD_VERIFICATION_ATTEMPTS_PER_CODE", as: Int.self) ?? 5

    @Option(help: "Codes sent to one phone number before the limit. [env: SWITCHBOARD_VERIFICATION_BURST_PER_PHONE]")
    var verificationBurstPerPhone: Int = envValue("SWITCHBOARD_VERIFICATION_BURST_PER_PHONE", as: Int.self) ?? 3

    @Option(
        help: "Seconds per further code to one phone number. [env: SWITCHBOARD_VERIFICATION_INTERVAL_PER_PHONE]")
    var verificationIntervalPerPhone: Double =
        envValue("SWITCHBOARD_VERIFICATION_INTERVAL_PER_PHONE", as: Double.self) ?? 200

    @Option(
        help: "Codes requested per client address before the limit. [env: SWITCHBOARD_VERIFICATION_BURST_PER_ADDRESS]"
    )
    var verificationBurstPerAddress: Int = envValue("SWITCHBOARD_VERIFICATION_BURST_PER_ADDRESS", as: Int.self) ?? 10

    @Option(
        help: """
            Seconds per further code requested per client address. [env: \
            SWITCHBOARD_VERIFICATION_INTERVAL_PER_ADDRESS]
            """)
    var verificationIntervalPerAddress: Double =
        envValue("SWITCHBOARD_VERIFICATION_INTERVAL_PER_ADDRESS", as: Double.self) ?? 60

    @Option(
        help: """
            How codes are sent: off, log (the code in the server log, for development), http, or auto (log with the \
            embedded PostgreSQL, off with --database-url). [env: SWITCHBOARD_SMS_GATEWAY]
            """)
    var smsGateway: String = env("SWITCHBOARD_SMS_GATEWAY") ?? "auto"

    @Option(
        name: .customLong("sms-gateway-url"),
        help: "The URL the http gateway POSTs each code to. [env: SWITCHBOARD_SMS_GATEWAY_URL]")
    var smsGatewayURL: String = env("SWITCHBOARD_SMS_GATEWAY_URL") ?? ""

    @Option(
        help: """
            The http gateway's request body; {phone}, {code} and {text} are replaced (escaped for the content \
            type). [env: SWITCHBOARD_SMS_GATEWAY_BODY]
            """)
    var smsGatewayBody: String = env("SWITCHBOARD_SMS_GATEWAY_BODY") ?? SMSGatewaySettings().bodyTemplate

    @Option(help: "The http gateway's body type: json or form. [env: SWITCHBOARD_SMS_GATEWAY_CONTENT_TYPE]")
    var smsGatewayContentType: String = env("SWITCHBOARD_SMS_GATEWAY_CONTENT_TYPE") ?? "json"

    @Option(
        help: """
            One header line the http gateway sends, e.g. "Authorization: Basic ..." (never logged). [env: \
            SWITCHBOARD_SMS_GATEWAY_AUTH_HEADER]
            """)
    var smsGatewayAuthHeader: String = env("SWITCHBOARD_SMS_GATEWAY_AUTH_HEADER") ?? ""

    @Option(help: "Seconds the http gateway waits for an answer. [env: SWITCHBOARD_SMS_GATEWAY_TIMEOUT]")
    var smsGatewayTimeout: Double = envValue("SWITCHBOARD_SMS_GATEWAY_TIMEOUT", as: Double.self) ?? 10

    func validate() throws {
        guard phoneVerification == "auto" || PhoneVerificationSettings.Mode(rawValue: phoneVerification) != nil else {
            throw ValidationError("--phone-verification is off, required or auto")
        }
        guard smsGateway == "auto" || SMSGatewaySettings.Kind(rawValue: smsGateway) != nil else {
            throw ValidationError("--sms-gateway is off, log, http or auto")
        }
        guard SMSGatewaySettings.ContentType(rawValue: smsGatewayContentType) != nil else {
            throw ValidationError("--sms-gateway-content-type is json or form")
        }
        guard verificationCodeTtl >= 0, verificationAttemptsPerCode >= 1, verificationBurstPerPhone >= 1,
            verificationBurstPerAddress >= 1, verificationIntervalPerPhone > 0, verificationIntervalPerAddress > 0,
            smsGatewayTimeout > 0
        else {
            throw ValidationError(
                "phone verification: ttl at least 0, attempts and bursts at least 1, intervals and timeout above 0")
        }
        if smsGateway == "http" {
            guard smsGatewayURL.hasPrefix("http://") || smsGatewayURL.hasPrefix("https://") else {
                throw ValidationError("--sms-gateway http needs an http:// or https:// --sms-gateway-url")
            }
        }
        if phoneVerification == "required" && smsGateway == "off" {
            throw ValidationError("--phone-verification required needs an SMS gateway (log or http)")
        }
    }

    /// Writes the settings; `embedded`: no `--database-url` (the development defaults).
    func apply(to c: inout ServerConfiguration, embedded: Bool) {
        var v = PhoneVerificationSettings()
        v.mode = PhoneVerificationSettings.Mode(rawValue: phoneVerification) ?? (embedded ? .required : .off)
        v.codeTTL = verificationCodeTtl
        v.attemptsPerCode = verificationAttemptsPerCode
        v.sendsBurstPerPhone = verificationBurstPerPhone
        v.sendsIntervalPerPhone = verificationIntervalPerPhone
        v.sendsBurstPerAddress = verificationBurstPerAddress
        v.sendsIntervalPerAddress = verificationIntervalPerAddress
        v.gateway.kind = SMSGatewaySettings.Kind(rawValue: smsGateway) ?? (embedded ? .log : .off)
        // `required` chosen without a gateway: the log one rather than a server nobody can register with.
        if v.mode == .required && v.gateway.kind == .off && smsGateway == "auto" { v.gateway.kind = .log }
        v.gateway.url = smsGatewayURL
        v.gateway.bodyTemplate = smsGatewayBody
        v.gateway.contentType = SMSGatewaySettings.ContentType(rawValue: smsGatewayContentType) ?? .json
        v.gateway.authHeader = smsGatewayAuthHeader
        v.gateway.timeout = smsGatewayTimeout
        c.phoneVerification = v
    }
}
