//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient

#if canImport(Glibc)
import Glibc
#endif

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
