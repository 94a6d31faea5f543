//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The exit codes of `switchboard-cli` (documented in docs/cli.md).
public enum CLIExitCode: Int32, Sendable {
    /// Success; for `call`, the call was answered and ended normally.
    case ok = 0
    /// The server refused the request (its error code is shown), or replied with something unexpected.
    case serverRefused = 1
    /// Bad usage: unknown command or option, missing argument, a friend, group or request that does not exist.
    case usage = 2
    /// Not logged in on this profile, or the saved session is no longer valid.
    case notLoggedIn = 3
    /// Cannot connect to the server, no reply in time, or the connection was lost.
    case connection = 4
    /// A call was not answered: declined, busy, unavailable, timeout or cancelled.
    case callNotAnswered = 5
    /// A local file could not be read or written (config folder, voice file, SDP file).
    case localFile = 6
    /// A call with media was answered and ended, but no media arrived from the other side.
    case noMedia = 7
    /// The media engine failed: the pipeline could not be built or started, or the offer/answer could not be made.
    case media = 8
    /// Interrupted twice (Ctrl-C while already shutting down).
    case interrupted = 130
}
