//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
import SwitchboardProtocol
import SwitchboardTransport

/// What an interactive session reacts to, merged into one stream: client events, input lines, Ctrl-C and
/// the results of requests it started in the background.
public enum SessionInput: Sendable {
    case event(ClientEvent)
    /// The client's event stream finished (the client closed).
    case eventsEnded
    case line(String)
    case endOfInput
    case interrupt
    /// A line to print that a background task produced.
    case record(OutputRecord)
    /// A background request finished (`true`: it succeeded).
    case requestFinished(tag: String, ok: Bool)
    /// A timer the session set.
    case deadline(tag: String)
    /// The call's media engine reported something (`CallMedia`).
    case media(MediaEvent)
}

extension SessionInput {
    /// What every interactive session (chat, call, listen) does with the inputs it does not handle itself: a
    /// connection that ended for good, or an event stream that finished, ends the session with its exit code;
    /// any other client event is printed.
    /// - Returns: the exit code to end the session with, or nil to go on.
    public func handleAsOther(names: NameBook, printer: Printer) -> CLIExitCode? {
        switch self {
        case .event(.state(.closed(let reason))):
            printer.error("the connection ended: \(reason)")
            return reason == .sessionRevoked ? .notLoggedIn : .connection
        case .event(let other):
            if let r = EventFormatter.event(other, names: names) { printer.emit(r) }
            return nil
        case .eventsEnded:
            return .connection
        default:
            return nil
        }
    }
}
