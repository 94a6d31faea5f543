//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Who may send an op.
public enum AuthenticationRule: String, Sendable, Equatable {
    /// Only an authenticated connection (`not_authenticated` before).
    case required
    /// Only before authentication: `register`, `login`, `authenticate` (`already_authenticated` after).
    case authenticates
}
