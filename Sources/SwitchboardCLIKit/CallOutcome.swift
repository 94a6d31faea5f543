//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The call events and replies the terminal client reads are the protocol's own (`CallEvents.Ring`,
// `CallEvents.Ended`, ..., `Ops.CallInvite`, ... in SwitchboardProtocol).

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
