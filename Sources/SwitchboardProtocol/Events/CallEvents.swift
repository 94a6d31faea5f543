//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The call events (docs/protocol.md, "Calls"): what the server's `CallService` sends and what clients decode
/// (`RawEvent.decode(CallEvents.Ring.self)`). A device is a session: an event to a device goes to every connection
/// of that session.
public enum CallEvents {
    /// `call.ring {call_id, caller, media, offer?, ring_ms}`: a call to me, to every online device of the callee.
    public struct Ring: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.ring"

        /// Who calls: `{user_id, display_name}`.
        public struct Caller: Codable, Sendable, Equatable {
            /// The caller's user id.
            public var userId: Int64
            /// The caller's display name ("" when the server does not know it).
            public var displayName: String

            /// A caller.
            public init(userId: Int64, displayName: String) {
                self.userId = userId
                self.displayName = displayName
            }
        }

        /// The call.
        public var callId: String
        /// Who calls.
        public var caller: Caller
        /// `voice` or `video`.
        public var media: String
        /// The caller's SDP offer, when it sent one with `call.invite`.
        public var offer: String?
        /// Milliseconds left before the ring times out (relative, so the clocks need not agree). Always sent by this
        /// server; optional for clients reading an older one.
        public var ringMs: Int64?

        /// The fields of the event.
        public init(callId: String, caller: Caller, media: String, offer: String? = nil, ringMs: Int64? = nil) {
            self.callId = callId
            self.caller = caller
            self.media = media
            self.offer = offer
            self.ringMs = ringMs
        }
    }

    /// `call.ringing {call_id, devices}`: my call rings on `devices` devices, to the caller's device.
    public struct Ringing: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.ringing"
        /// The call.
        public var callId: String
        /// How many of the callee's devices ring.
        public var devices: Int

        /// The fields of the event.
        public init(callId: String, devices: Int) {
            self.callId = callId
            self.devices = devices
        }
    }

    /// `call.answered_elsewhere {call_id}`: to the callee's other ringing devices once one of them answered.
    public struct AnsweredElsewhere: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.answered_elsewhere"
        /// The call.
        public var callId: String

        /// The fields of the event.
        public init(callId: String) { self.callId = callId }
    }

    /// `call.accepted {call_id, answer?}`: my call was answered, to the caller's device.
    public struct Accepted: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.accepted"
        /// The call.
        public var callId: String
        /// The callee's SDP answer, when it sent one with `call.accept`.
        public var answer: String?

        /// The fields of the event.
        public init(callId: String, answer: String? = nil) {
            self.callId = callId
            self.answer = answer
        }
    }

    /// `call.signal {call_id, kind, payload}`: a signal relayed from the other party's device in the call.
    public struct Signal: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.signal"
        /// The call.
        public var callId: String
        /// `offer`, `answer`, `ice_candidate`, ...
        public var kind: String
        /// The signal as the other party sent it.
        public var payload: String

        /// The fields of the event.
        public init(callId: String, kind: String, payload: String) {
            self.callId = callId
            self.kind = kind
            self.payload = payload
        }
    }

    /// `call.peer_connection_lost {call_id, grace_ms}`: the other party's device lost its connection; the call waits
    /// `grace_ms` for it to come back.
    public struct PeerConnectionLost: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.peer_connection_lost"
        /// The call.
        public var callId: String
        /// Milliseconds the call waits for the other device before it ends as `connection_lost`.
        public var graceMs: Int64

        /// The fields of the event.
        public init(callId: String, graceMs: Int64) {
            self.callId = callId
            self.graceMs = graceMs
        }
    }

    /// `call.peer_reconnected {call_id}`: the other party's device is back within the grace period.
    public struct PeerReconnected: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.peer_reconnected"
        /// The call.
        public var callId: String

        /// The fields of the event.
        public init(callId: String) { self.callId = callId }
    }

    /// `call.resumed {call}`: to a device that came back within the grace period of its active call.
    public struct Resumed: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.resumed"
        /// The call as it is now.
        public var call: CallInfo

        /// The fields of the event.
        public init(call: CallInfo) { self.call = call }
    }

    /// `call.ended {call_id, reason, duration_ms}`: to the parties' devices still involved, once the call's history
    /// row is written.
    public struct Ended: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "call.ended"
        /// The call.
        public var callId: String
        /// Why it ended: `hangup`, `declined`, `busy`, `unavailable`, `timeout`, `cancelled`, `connection_lost`,
        /// `server_shutdown` or `server_failure`.
        public var reason: String
        /// How long it was active (0 when it was never answered).
        public var durationMs: Int64

        /// The fields of the event.
        public init(callId: String, reason: String, durationMs: Int64) {
            self.callId = callId
            self.reason = reason
            self.durationMs = durationMs
        }
    }
}
