//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a one-time code asked with `SwitchboardClient.startVerification` is for (`purpose` of `verification.start`).
public enum CodePurpose: String, Sendable, Equatable {
    /// Signing up: pass the code to `register`.
    case register
    /// A forgotten password: pass the code to `resetPassword`.
    case reset
}
