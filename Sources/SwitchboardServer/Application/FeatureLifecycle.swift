//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore

/// Work a feature starts with the server and stops with it.
struct FeatureLifecycle: Sendable {
    /// What it is, for logs.
    var name: String
    /// Starts it (after the server listens).
    var start: @Sendable () -> Void
    /// Stops it (during shutdown, before the database closes).
    var stop: @Sendable () -> Void
}
