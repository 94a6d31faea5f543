//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The look of a human line.
public enum OutputStyle: Sendable, Equatable {
    case plain
    /// Secondary information (history, hints).
    case dim
    /// Something that arrived: messages, incoming calls.
    case incoming
    /// A success: sent, accepted, connected.
    case success
    /// Needs attention: ringing, a connection problem.
    case warning
    /// A failure or an unanswered call.
    case failure

    var ansi: String {
        switch self {
        case .plain: return ""
        case .dim: return "\u{1B}[2m"
        case .incoming: return "\u{1B}[36m"
        case .success: return "\u{1B}[32m"
        case .warning: return "\u{1B}[33m"
        case .failure: return "\u{1B}[31m"
        }
    }
}
