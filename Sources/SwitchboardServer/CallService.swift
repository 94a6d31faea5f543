//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import SwitchboardStore

/// Call signalling settings (see docs/calls.md).
public struct CallConfiguration: Sendable {
    public init() {}
}

/// Drives the `SwitchboardCalls` state machine for the `/ws` protocol.
final class CallService: Sendable {
    let registry: SessionRegistry
    let configuration: CallConfiguration
    let pool: DatabasePool
    let logger: Logger

    init(registry: SessionRegistry, configuration: CallConfiguration, pool: DatabasePool, logger: Logger) {
        self.registry = registry
        self.configuration = configuration
        self.pool = pool
        self.logger = logger
    }

    /// Ends calls in progress (server shutdown).
    func shutdown() {}
}
