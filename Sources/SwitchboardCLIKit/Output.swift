//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient

#if canImport(Glibc)
import Glibc
#endif

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

/// One result or event: a stable `type` and fields for `--json`, a sentence for people.
public struct OutputRecord: Sendable, Equatable {
    /// `message`, `call.ended`, `friend`, ... (the `type` key of the JSON object).
    public var type: String
    /// The JSON fields besides `type` (snake_case keys).
    public var fields: [String: JSONValue]
    /// The human line.
    public var text: String
    public var style: OutputStyle

    public init(_ type: String, _ fields: [String: JSONValue] = [:], text: String, style: OutputStyle = .plain) {
        self.type = type
        self.fields = fields
        self.text = text
        self.style = style
    }
}

/// Renders records as lines (pure; `Printer` writes them).
public enum OutputFormatter {
    /// The line for `record` in `mode`, without the newline.
    public static func render(_ record: OutputRecord, mode: OutputMode) -> String {
        switch mode {
        case .json:
            var object = record.fields
            object["type"] = .string(record.type)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(JSONValue.object(object)) else {
                return "{\"type\":\"\(record.type)\"}"
            }
            return String(decoding: data, as: UTF8.self)
        case .human(let color):
            let text = sanitize(record.text)
            guard color, record.style != .plain else { return text }
            return record.style.ansi + text + "\u{1B}[0m"
        }
    }

    /// Replaces control characters (other than tab) so that text from others cannot drive the terminal.
    public static func sanitize(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
                        ? "\u{FFFD}" : scalar
                }))
    }
}

/// Writes records to stdout and errors to stderr, each line in one `write` as soon as it is made (no
/// buffering, so a pipe or a pseudo-terminal sees it at once). Thread-safe.
public final class Printer: @unchecked Sendable {
    // @unchecked Sendable: `mode` is immutable; writes are serialized by `lock`.
    public let mode: OutputMode
    private let lock = NSLock()

    public init(mode: OutputMode) { self.mode = mode }

    /// Prints a record (JSON or human).
    public func emit(_ record: OutputRecord) {
        write(OutputFormatter.render(record, mode: mode) + "\n", to: FileHandle.standardOutput)
    }

    /// Prints a hint or prompt for people (not in `--json` mode).
    public func hint(_ text: String) {
        guard case .human = mode else { return }
        emit(OutputRecord("hint", text: text, style: .dim))
    }

    /// Prints `switchboard-cli: error: <message>` on stderr.
    public func error(_ message: String) {
        write("switchboard-cli: error: \(OutputFormatter.sanitize(message))\n", to: FileHandle.standardError)
    }

    /// Prints `switchboard-cli: <message>` on stderr.
    public func warning(_ message: String) {
        write("switchboard-cli: \(OutputFormatter.sanitize(message))\n", to: FileHandle.standardError)
    }

    private func write(_ line: String, to handle: FileHandle) {
        lock.lock()
        defer { lock.unlock() }
        do {
            try handle.write(contentsOf: Data(line.utf8))
        } catch {
            // The reader went away (`switchboard-cli listen --json | head -1`): SIGPIPE is ignored (the
            // transport sets SIG_IGN), so stop here as the signal would have, quietly.
            if handle === FileHandle.standardOutput { exit(0) }
        }
    }
}
