//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Phone verification (docs/protocol.md "Phone verification"): whether `register` needs a code sent to the phone,
/// how long a code lives, its limits, and the SMS gateway that sends it (`--phone-verification`,
/// `--verification-*`, `--sms-gateway-*`).
public struct PhoneVerificationSettings: Sendable {
    /// Whether `register` needs a code.
    public enum Mode: String, Sendable, CaseIterable {
        /// `register` as before (no code); `verification.start` and `password.reset` work if a gateway is set.
        case off
        /// `register` answers `invalid_code` without a valid code for its number.
        case required
    }

    /// `--phone-verification` (default off; the executable's embedded-database default is `required`).
    public var mode = Mode.off
    /// Seconds a code stays valid (`--verification-code-ttl`).
    public var codeTTL = 600.0
    /// Wrong codes a code survives (`--verification-attempts-per-code`); then it is dead.
    public var attemptsPerCode = 5
    /// Codes sent to one phone number before the limit (`--verification-burst-per-phone`).
    public var sendsBurstPerPhone = 3
    /// Seconds per further code to one phone number (`--verification-interval-per-phone`).
    public var sendsIntervalPerPhone = 200.0
    /// Codes requested from one client address before the limit (`--verification-burst-per-address`).
    public var sendsBurstPerAddress = 10
    /// Seconds per further code requested from one client address (`--verification-interval-per-address`).
    public var sendsIntervalPerAddress = 60.0
    /// How codes reach the phone.
    public var gateway = SMSGatewaySettings()

    public init() {}
}
