//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How results and events are printed.
public enum OutputMode: Sendable, Equatable {
    /// Lines for people; ANSI colours when `color` (stdout is a terminal and `NO_COLOR` is unset).
    case human(color: Bool)
    /// One JSON object per line, keys sorted, always with `"type"`.
    case json

    /// Human output with colour when stdout is a terminal and `NO_COLOR` is not set (https://no-color.org).
    public static func detect(json: Bool, stdoutIsTerminal: Bool, environment: [String: String]) -> OutputMode {
        if json { return .json }
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return .human(color: stdoutIsTerminal && !noColor && environment["TERM"] != "dumb")
    }
}
