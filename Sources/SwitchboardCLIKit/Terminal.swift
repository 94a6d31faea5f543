//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The terminal: whether streams are terminals, password prompts without echo, stdin lines on a thread of
/// their own, and Ctrl-C. (Terminal file descriptors 0-2 only; sockets stay in SwitchboardTransport.)
public enum Terminal {
    /// Whether stdin is a terminal.
    public static var stdinIsTerminal: Bool { isatty(0) == 1 }
    /// Whether stdout is a terminal.
    public static var stdoutIsTerminal: Bool { isatty(1) == 1 }

    /// Reads a password: from stdin when `fromStdin` (one line), else `SWITCHBOARD_PASSWORD`, else a prompt on
    /// the terminal with echo off (twice when `confirm`).
    /// - Throws: `CLIError` (usage) when there is no password to read, or the two entries differ.
    public static func readPassword(fromStdin: Bool, environment: [String: String], confirm: Bool) throws(CLIError)
        -> String
    {
        if fromStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CLIError("--password-stdin: no password on stdin", exitCode: .usage)
            }
            return line
        }
        if let password = environment["SWITCHBOARD_PASSWORD"], !password.isEmpty { return password }
        guard stdinIsTerminal else {
            throw CLIError(
                "no password: pass --password-stdin, set SWITCHBOARD_PASSWORD, or run in a terminal to be asked",
                exitCode: .usage)
        }
        let first = try prompt("Password: ")
        if confirm {
            let second = try prompt("Repeat password: ")
            guard first == second else { throw CLIError("the passwords do not match", exitCode: .usage) }
        }
        return first
    }

    /// Prompts on stderr and reads one line from the terminal with echo off.
    private static func prompt(_ text: String) throws(CLIError) -> String {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
        var saved = termios()
        let haveTerminal = tcgetattr(0, &saved) == 0
        if haveTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(0, TCSANOW, &quiet)
        }
        let line = readLine(strippingNewline: true)
        if haveTerminal { _ = tcsetattr(0, TCSANOW, &saved) }
        try? FileHandle.standardError.write(contentsOf: Data("\n".utf8))
        guard let line, !line.isEmpty else { throw CLIError("no password entered", exitCode: .usage) }
        return line
    }

    /// Reads stdin line by line on a thread of its own (so reading never blocks a loop queue or the
    /// cooperative pool) and hands each line to `deliver`; nil at the end of input.
    public static func readLines(_ deliver: @escaping @Sendable (String?) -> Void) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { deliver(line) }
            deliver(nil)
        }
        thread.name = "switchboard-cli stdin"
        thread.start()
    }
}
