//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Accounts and sessions (docs/protocol.md, "Accounts"). Authentication ops are never in the ordered lane:
// requests sent while one runs wait for it and are processed after it, in order.

extension Ops {
    /// The account and session ops.
    public static let accounts: [any ProtocolOperation.Type] = [
        Register.self, Login.self, Authenticate.self, Logout.self, Ping.self, SessionsList.self, SessionsRevoke.self,
        ProfileGet.self, ProfileUpdate.self, VerificationStart.self, PasswordReset.self,
    ]

    /// `register {phone, password, display_name, device, handle?, code?}` -> credentials.
    public enum Register: ProtocolOperation {
        public static let name = "register"
        public static let stringParameters: [String: StringParameter] = [
            "phone": .lookup, "password": .secret, "code": .secret,
        ]
        public static let authentication = AuthenticationRule.authenticates
        public static let stateChanging = false
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.registration
        /// Parameters of `register`.
        public struct Parameters: Codable, Sendable, Equatable, CustomStringConvertible {
            /// The phone number in any accepted format (normalised to E.164 by the server).
            public var phone: String
            /// The password (6 characters to 1,024 bytes); a secret.
            public var password: String
            /// The display name (1-64 characters, no control characters).
            public var displayName: String
            /// A name for the device (1-64 characters), shown in `sessions.list`.
            public var device: String
            /// A handle to take at once (Social; `handle_taken`, `bad_request` when invalid or reserved).
            public var handle: String?
            /// The code `verification.start` (purpose `register`) sent to the phone; required when the server
            /// requires phone verification (`invalid_code` without a valid one); a secret.
            public var code: String?

            public init(
                phone: String, password: String, displayName: String, device: String, handle: String? = nil,
                code: String? = nil
            ) {
                self.phone = phone
                self.password = password
                self.displayName = displayName
                self.device = device
                self.handle = handle
                self.code = code
            }

            /// Redacts the password and the code.
            public var description: String {
                "RegisterParams(phone: \(phone), displayName: \(displayName), device: \(device), password: <redacted>"
                    + (code == nil ? ")" : ", code: <redacted>)")
            }
        }
        public typealias Result = SessionCredentials
    }

    /// `login {phone, password, device}` -> credentials.
    public enum Login: ProtocolOperation {
        public static let name = "login"
        public static let stringParameters: [String: StringParameter] = ["phone": .lookup, "password": .secret]
        public static let authentication = AuthenticationRule.authenticates
        public static let stateChanging = false
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.login
        /// Parameters of `login`.
        public struct Parameters: Codable, Sendable, Equatable, CustomStringConvertible {
            /// The phone number in any accepted format.
            public var phone: String
            /// The password; a secret.
            public var password: String
            /// A name for the device, shown in `sessions.list`.
            public var device: String

            public init(phone: String, password: String, device: String) {
                self.phone = phone
                self.password = password
                self.device = device
            }

            /// Redacts the password.
            public var description: String { "LoginParams(phone: \(phone), device: \(device), password: <redacted>)" }
        }
        public typealias Result = SessionCredentials
    }

    /// `verification.start {phone, purpose}` -> `{}`: sends a one-time code to the phone for `register` or
    /// `password.reset`; the same answer whether or not the number is registered.
    public enum VerificationStart: ProtocolOperation {
        public static let name = "verification.start"
        public static let stringParameters: [String: StringParameter] = ["phone": .lookup, "purpose": .lookup]
        public static let authentication = AuthenticationRule.authenticates
        public static let stateChanging = false
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.codes
        /// Parameters of `verification.start`.
        public struct Parameters: Codable, Sendable, Equatable {
            /// The phone number in any accepted format (normalised to E.164 by the server).
            public var phone: String
            /// What the code is for: `register` or `reset`.
            public var purpose: String

            public init(phone: String, purpose: String) {
                self.phone = phone
                self.purpose = purpose
            }
        }
        public typealias Result = Empty
    }

    /// `password.reset {phone, code, password, device}` -> credentials: a new password with a code sent by
    /// `verification.start` (purpose `reset`); the account's other sessions are revoked.
    public enum PasswordReset: ProtocolOperation {
        public static let name = "password.reset"
        public static let stringParameters: [String: StringParameter] = [
            "phone": .lookup, "password": .secret, "code": .secret,
        ]
        public static let authentication = AuthenticationRule.authenticates
        public static let stateChanging = false
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.codes
        /// Parameters of `password.reset`.
        public struct Parameters: Codable, Sendable, Equatable, CustomStringConvertible {
            /// The phone number in any accepted format.
            public var phone: String
            /// The code sent to the phone; a secret.
            public var code: String
            /// The new password (the rules of `register`); a secret.
            public var password: String
            /// A name for the device, shown in `sessions.list`.
            public var device: String

            public init(phone: String, code: String, password: String, device: String) {
                self.phone = phone
                self.code = code
                self.password = password
                self.device = device
            }

            /// Redacts the code and the password.
            public var description: String {
                "PasswordResetParams(phone: \(phone), device: \(device), code: <redacted>, password: <redacted>)"
            }
        }
        public typealias Result = SessionCredentials
    }

    /// `authenticate {token, resume?}` -> `{user_id, session_id, profile}`.
    public enum Authenticate: ProtocolOperation {
        public static let name = "authenticate"
        public static let authentication = AuthenticationRule.authenticates
        public static let stateChanging = false
        public static let idempotent = false
        /// Parameters of `authenticate`.
        public struct Parameters: Codable, Sendable, Equatable, CustomStringConvertible {
            /// The session token from `register` or `login`; a secret.
            public var token: String
            /// The client will send `sync` next: live messages are held from authentication until that sync ends.
            public var resume: Bool?
            public init(token: String, resume: Bool? = nil) {
                self.token = token
                self.resume = resume
            }
            /// Redacts the token.
            public var description: String { "AuthenticateParams(token: <redacted>)" }
        }
        public typealias Result = AuthenticateResult
    }

    /// `logout {}` -> `{}`; the server then closes the connection with 1000.
    public enum Logout: ProtocolOperation {
        public static let name = "logout"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = Empty
        public typealias Result = Empty
    }

    /// `ping {}` -> `{}`.
    public enum Ping: ProtocolOperation {
        public static let name = "ping"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = Empty
    }

    /// `sessions.list {}` -> `{sessions}`.
    public enum SessionsList: ProtocolOperation {
        public static let name = "sessions.list"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = SessionsListResult
    }

    /// `sessions.revoke {session_id}` -> `{}`.
    public enum SessionsRevoke: ProtocolOperation {
        public static let name = "sessions.revoke"
        public static let stateChanging = true
        public static let idempotent = false
        /// Parameters of `sessions.revoke`.
        public struct Parameters: Codable, Sendable, Equatable {
            /// One of the user's own sessions.
            public var sessionId: Int64
            public init(sessionId: Int64) { self.sessionId = sessionId }
        }
        public typealias Result = Empty
    }

    /// `profile.get {user_id?}` -> `{profile}`.
    public enum ProfileGet: ProtocolOperation {
        public static let name = "profile.get"
        public static let stateChanging = false
        public static let idempotent = true
        /// Parameters of `profile.get`.
        public struct Parameters: Codable, Sendable, Equatable {
            /// The user (oneself, a friend, or anyone with a handle); absent for one's own profile.
            public var userId: Int64?
            /// Or the user's handle (without `@`, any case).
            public var handle: String?
            public init(userId: Int64? = nil, handle: String? = nil) {
                self.userId = userId
                self.handle = handle
            }
        }
        public typealias Result = ProfileResult
    }

    /// `profile.update {display_name?, time_zone?, locale?}` (at least one) -> `{profile}`.
    public enum ProfileUpdate: ProtocolOperation {
        public static let name = "profile.update"
        public static let stringParameters: [String: StringParameter] = ["bio": .text]
        public static let stateChanging = true
        public static let idempotent = true
        /// Parameters of `profile.update`.
        public struct Parameters: Codable, Sendable, Equatable {
            /// The new display name.
            public var displayName: String?
            /// The new IANA time zone (`Europe/Paris`): active hours and calendars.
            public var timeZone: String?
            /// The new BCP 47 locale (`fr-FR`).
            public var locale: String?
            /// The new bio (at most 160 characters; "" clears it).
            public var bio: String?
            /// Whether the account is protected (turning it off approves every pending follow request).
            public var protected: Bool?
            /// `friends`, `mutuals` or `anyone`: who may open a direct conversation with you.
            public var dmPolicy: String?
            public init(
                displayName: String? = nil, timeZone: String? = nil, locale: String? = nil, bio: String? = nil,
                protected: Bool? = nil,
                dmPolicy: String? = nil
            ) {
                self.displayName = displayName
                self.timeZone = timeZone
                self.locale = locale
                self.bio = bio
                self.protected = protected
                self.dmPolicy = dmPolicy
            }
        }
        public typealias Result = ProfileResult
    }
}
