//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Call signalling (docs/protocol.md, "Calls"). The server writes the `call` object of the results by hand
// (`CallService.write`, keys sorted; a test compares it with `CallInfo`'s encoding); the types say what a client
// decodes. The call events are `CallEvents` (`Events/CallEvents.swift`).

extension Ops {
    /// The call ops.
    public static let calls: [any ProtocolOperation.Type] = [
        CallInvite.self, CallAccept.self, CallDecline.self, CallCancel.self, CallHangup.self, CallSignal.self,
        CallTurn.self, CallHistory.self,
    ]

    /// `call.invite {callee_id, media?, call_id?, offer?}` -> `{call, disposition}`.
    public enum CallInvite: ProtocolOperation {
        public static let name = "call.invite"
        /// SDP (CRLF lines) or a candidate's JSON text: free text (`payload_too_large` past the calls' limits).
        public static let stringParameters: [String: StringParameter] = ["offer": .text]
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var calleeId: Int64
            /// `voice` (default) or `video`.
            public var media: String?
            /// The caller's own id for the call (1-64 printable ASCII characters).
            public var callId: String?
            public var offer: String?
            public init(calleeId: Int64, media: String? = nil, callId: String? = nil, offer: String? = nil) {
                self.calleeId = calleeId
                self.media = media
                self.callId = callId
                self.offer = offer
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var call: CallInfo
            /// `ringing`, `unavailable`, `busy` or `joined` (glare: the call the callee started).
            public var disposition: String
            /// The result.
            public init(call: CallInfo, disposition: String) {
                self.call = call
                self.disposition = disposition
            }
        }
    }

    /// `call.accept {call_id, answer?}` -> `{call}`.
    public enum CallAccept: ProtocolOperation {
        public static let name = "call.accept"
        /// SDP (CRLF lines) or a candidate's JSON text: free text (`payload_too_large` past the calls' limits).
        public static let stringParameters: [String: StringParameter] = ["answer": .text]
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var callId: String
            public var answer: String?
            public init(callId: String, answer: String? = nil) {
                self.callId = callId
                self.answer = answer
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var call: CallInfo?
            /// The result.
            public init(call: CallInfo?) { self.call = call }
        }
    }

    /// `call.decline {call_id}` -> `{}`.
    public enum CallDecline: ProtocolOperation {
        public static let name = "call.decline"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = CallIDParameters
        public typealias Result = Empty
    }

    /// `call.cancel {call_id}` -> `{}`.
    public enum CallCancel: ProtocolOperation {
        public static let name = "call.cancel"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = CallIDParameters
        public typealias Result = Empty
    }

    /// `call.hangup {call_id}` -> `{}`.
    public enum CallHangup: ProtocolOperation {
        public static let name = "call.hangup"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = CallIDParameters
        public typealias Result = Empty
    }

    /// `call.signal {call_id, kind, payload}` -> `{}`.
    public enum CallSignal: ProtocolOperation {
        public static let name = "call.signal"
        /// SDP (CRLF lines) or a candidate's JSON text: free text (`payload_too_large` past the calls' limits).
        public static let stringParameters: [String: StringParameter] = ["payload": .text]
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var callId: String
            /// `offer`, `answer`, `ice_candidate`, ...
            public var kind: String
            public var payload: String
            public init(callId: String, kind: String, payload: String) {
                self.callId = callId
                self.kind = kind
                self.payload = payload
            }
        }
        public typealias Result = Empty
    }

    /// `call.turn {call_id?}` -> ICE servers and TURN credentials.
    public enum CallTurn: ProtocolOperation {
        public static let name = "call.turn"
        public static let stateChanging = false
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.turn
        public struct Parameters: Codable, Sendable, Equatable {
            public var callId: String?
            public init(callId: String? = nil) { self.callId = callId }
        }
        public struct Result: Codable, Sendable, Equatable {
            public struct ICEServer: Codable, Sendable, Equatable {
                public var urls: [String]
                public var username: String?
                public var credential: String?
            }
            public var iceServers: [ICEServer]
            public var ttl: Int64
            public var uris: [String]
            public var username: String?
            public var password: String?
            public var expiresAt: Int64?
        }
    }

    /// `call.history {before?, limit?}` -> `{calls, has_more}`, latest first.
    public enum CallHistory: ProtocolOperation {
        public static let name = "call.history"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// The `ended_at` of the oldest call of the previous page.
            public var before: String?
            public var limit: Int?
            public init(before: String? = nil, limit: Int? = nil) {
                self.before = before
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var calls: [CallHistoryEntry]
            public var hasMore: Bool
            public init(calls: [CallHistoryEntry], hasMore: Bool) {
                self.calls = calls
                self.hasMore = hasMore
            }
        }
    }
}
