//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardClient

// The call events and replies of protocol v1 (docs/protocol.md, "Calls"), as the terminal client decodes
// them from `ClientEvent.other(RawEvent)` and `ReplyPayload`.

/// A `call` object.
public struct CallInfo: Codable, Sendable, Equatable {
    public var callId: String
    public var callerId: Int64
    public var calleeId: Int64
    public var media: String
    public var offer: String?
    /// `ringing`, `active` or `ended`.
    public var state: String
    public var reason: String?
}

/// The reply to `call.invite`.
public struct CallInviteReply: Codable, Sendable, Equatable {
    public var call: CallInfo
    /// `ringing`, `unavailable`, `busy` or `joined`.
    public var disposition: String
}

/// The reply to `call.accept`.
public struct CallReply: Codable, Sendable, Equatable {
    public var call: CallInfo
}

/// `call.ring`: a call to me.
public struct CallRing: Codable, Sendable, Equatable {
    public struct Caller: Codable, Sendable, Equatable {
        public var userId: Int64
        public var displayName: String
    }

    public var callId: String
    public var caller: Caller
    public var media: String
    public var offer: String?
}

/// `call.ringing`: my call rings on `devices` devices.
public struct CallRinging: Codable, Sendable, Equatable {
    public var callId: String
    public var devices: Int
}

/// `call.accepted`: my call was answered.
public struct CallAccepted: Codable, Sendable, Equatable {
    public var callId: String
    public var answer: String?
}

/// `call.signal`: relayed from the other party.
public struct CallSignal: Codable, Sendable, Equatable {
    public var callId: String
    public var kind: String
    public var payload: String
}

/// `call.ended`.
public struct CallEnded: Codable, Sendable, Equatable {
    public var callId: String
    public var reason: String
    public var durationMs: Int64
}

/// `call.answered_elsewhere`, `call.peer_reconnected`: just the call.
public struct CallReference: Codable, Sendable, Equatable {
    public var callId: String
}

/// `call.peer_connection_lost`.
public struct CallPeerLost: Codable, Sendable, Equatable {
    public var callId: String
    public var graceMs: Int64
}

/// `call.resumed`.
public struct CallResumed: Codable, Sendable, Equatable {
    public var call: CallInfo
}

/// Parameters of `call.invite`.
public struct CallInviteParams: Encodable, Sendable {
    public var calleeId: Int64
    public var media: String
    public var offer: String?

    public init(calleeId: Int64, media: String, offer: String?) {
        self.calleeId = calleeId
        self.media = media
        self.offer = offer
    }
}

/// Parameters of `call.accept`.
public struct CallAcceptParams: Encodable, Sendable {
    public var callId: String
    public var answer: String?

    public init(callId: String, answer: String?) {
        self.callId = callId
        self.answer = answer
    }
}

/// Parameters of `call.decline`, `call.hangup`, `call.cancel`.
public struct CallIDParams: Encodable, Sendable {
    public var callId: String

    public init(callId: String) { self.callId = callId }
}

/// Parameters of `call.signal`.
public struct CallSignalParams: Encodable, Sendable {
    public var callId: String
    public var kind: String
    public var payload: String

    public init(callId: String, kind: String, payload: String) {
        self.callId = callId
        self.kind = kind
        self.payload = payload
    }
}

/// How a call's end translates into the exit code of `call`.
public enum CallOutcome {
    /// The reasons that mean the call was never answered.
    public static let notAnsweredReasons: Set<String> = ["declined", "busy", "unavailable", "timeout", "cancelled"]

    /// `ok` for a call that was answered and hung up, `callNotAnswered` for declined, busy, unavailable, timeout
    /// and cancelled, `connection` for `connection_lost` and `server_shutdown`.
    public static func exitCode(reason: String) -> CLIExitCode {
        if notAnsweredReasons.contains(reason) { return .callNotAnswered }
        if reason == "hangup" { return .ok }
        return .connection
    }

    /// The end in words: `hangup` → "hung up", `timeout` → "no answer (ring timeout)".
    public static func describe(reason: String) -> String {
        switch reason {
        case "hangup": return "hangup"
        case "declined": return "declined"
        case "busy": return "busy (in another call)"
        case "unavailable": return "unavailable (no device online)"
        case "timeout": return "timeout (no answer before the ring timeout)"
        case "cancelled": return "cancelled"
        case "connection_lost": return "connection lost"
        case "server_shutdown": return "the server shut down"
        case "server_failure": return "the server coordinating calls failed"
        default: return reason
        }
    }
}
