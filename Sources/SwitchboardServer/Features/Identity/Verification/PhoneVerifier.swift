//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore
import Synchronization

/// Phone verification codes (docs/protocol.md "Phone verification"): `verification.start` makes and sends them,
/// `register` and `password.reset` check and use them up. One live code per number and purpose, stored as a
/// salted hash; limited per number and per client address (token buckets, charged before anything else so that a
/// registered number and a free one spend alike) and per code (wrong attempts, counted in the database). Off the
/// loops only.
final class PhoneVerifier: Sendable {
    let db: any Database
    let settings: PhoneVerificationSettings
    /// Nil: `--sms-gateway off` (no code is ever sent).
    let gateway: (any SMSGateway)?
    /// Codes sent per phone number.
    let perPhone: SharedRateLimiter<String>
    /// Codes requested per client address.
    let perAddress: SharedRateLimiter<String>
    /// Called once per gateway failure (the Prometheus counter).
    let gatewayFailed: @Sendable () -> Void
    /// How many nodes share the buckets (the live nodes of a cluster): each node charges that many tokens per code,
    /// as the login limits do, so that the nodes together never send more than the configured rate.
    let nodesSharingLimits: @Sendable () -> Int
    let clock: any EngineClock
    /// The gateway's recent time to take a code (an exponential average of successful sends, nanoseconds): a
    /// `verification.start` that sends nothing waits about as long (with jitter) before its answer, so that the
    /// answer's timing does not tell whether the number is registered.
    private let sendTime = Mutex<Double>(0)

    init(
        db: any Database, settings: PhoneVerificationSettings, gateway: (any SMSGateway)?,
        gatewayFailed: @escaping @Sendable () -> Void = {}, nodesSharingLimits: @escaping @Sendable () -> Int = { 1 },
        clock: any EngineClock
    ) {
        self.db = db
        self.nodesSharingLimits = nodesSharingLimits
        self.settings = settings
        self.gateway = gateway
        self.gatewayFailed = gatewayFailed
        self.clock = clock
        perPhone = SharedRateLimiter(
            capacity: Double(max(1, settings.sendsBurstPerPhone)),
            refillPerSecond: 1 / max(settings.sendsIntervalPerPhone, 0.000_001))
        perAddress = SharedRateLimiter(
            capacity: Double(max(1, settings.sendsBurstPerAddress)),
            refillPerSecond: 1 / max(settings.sendsIntervalPerAddress, 0.000_001))
    }

    /// Whether `register` needs a code.
    var required: Bool { settings.mode == .required }

    /// `verification.start` for a normalised number: charges the limits, then stores and sends a new code when the
    /// purpose fits the number (`register`: no account; `reset`: an account), else sends nothing. The caller answers
    /// the same either way.
    func start(phone: String, purpose: VerificationPurpose, address: String) async throws(IdentityError) {
        guard let gateway else { throw .verificationUnavailable }
        let now = clock.now()
        let cost = Double(max(1, nodesSharingLimits()))
        if let retry = perAddress.attempt(address, now: now, cost: cost).retryAfterMilliseconds {
            throw .verificationsLimited(retryAfterMilliseconds: retry)
        }
        if let retry = perPhone.attempt(phone, now: now, cost: cost).retryAfterMilliseconds {
            throw .verificationsLimited(retryAfterMilliseconds: retry)
        }
        let (ttl, attempts) = (settings.codeTTL, settings.attemptsPerCode)
        let code = try await db.write(as: IdentityError.self) { db -> VerificationCode? in
            try VerificationRepository.sweepExpired(db)
            let registered = try UserRepository.credentials(db, phone: phone) != nil
            guard registered == (purpose == .reset) else { return nil }
            let code = VerificationCode.generate()
            try VerificationRepository.store(
                db, phone: phone, purpose: purpose, code: code, ttl: ttl, attempts: attempts)
            return code
        }
        guard let code else {
            let pause = min(sendTime.withLock { $0 }, settings.gateway.timeout * 1e9) * Double.random(in: 0.8...1.2)
            if pause >= 1_000_000 { try? await Task.sleep(nanoseconds: UInt64(pause)) }
            return
        }
        let started = clock.now()
        do {
            try await gateway.send(phone: phone, code: code.digits, text: Self.text(code.digits, purpose: purpose))
        } catch {
            gatewayFailed()
            throw .smsGatewayFailed(underlying: error)
        }
        let took = Double(clock.now() &- started)
        sendTime.withLock { $0 = $0 == 0 ? took : $0 * 0.9 + took * 0.1 }
    }

    /// Checks `code` against the number's live code for `purpose`; the stored hash to use it up with
    /// (`VerificationRepository.consume`, in the caller's transaction). A wrong code costs one of the code's
    /// attempts (committed at once); wrong, expired, used up or never sent all answer `invalidCode`.
    func check(phone: String, purpose: VerificationPurpose, code: String) async throws(IdentityError) -> [UInt8] {
        let matched = try await db.write(as: IdentityError.self) { db -> [UInt8]? in
            guard let stored = try VerificationRepository.lock(db, phone: phone, purpose: purpose), stored.usable
            else { return nil }
            guard VerificationCode.matches(code, salt: stored.salt, hash: stored.hash) else {
                try VerificationRepository.recordWrongCode(db, phone: phone, purpose: purpose)
                return nil
            }
            return stored.hash
        }
        guard let matched else { throw .invalidCode }
        return matched
    }

    /// The message sent with a code.
    static func text(_ code: String, purpose: VerificationPurpose) -> String {
        switch purpose {
        case .register: return "Your Switchboard sign-up code is \(code). Do not share it."
        case .reset: return "Your Switchboard password reset code is \(code). Do not share it."
        }
    }
}
