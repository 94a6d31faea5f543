//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Synchronization

/// Limits of calls in a cluster (`docs/cluster.md`, "Calls across nodes").
struct CallClusterSettings: Sendable {
    init() {}

    /// The settings of a node's configuration (the defaults without one).
    init(_ configuration: ClusterConfiguration?) {
        guard let c = configuration else { return }
        replyTimeout = c.callForwardTimeout
        leaseTTL = c.callLeaseTTL
        leaseInterval = max(0.05, c.callLeaseTTL / 3)
        retryAfterMilliseconds = Int64(max(1, c.callLeaseTTL / 3) * 1000)
    }

    /// Seconds an origin node waits for the coordinator's answer to a forwarded request before it answers
    /// `unavailable` itself.
    var replyTimeout: Double = 5
    /// `retry_after_ms` of those `unavailable` answers, and of requests made while no coordinator is known.
    var retryAfterMilliseconds: Int64 = 2000
    /// Seconds the coordinator lease lasts without renewal (a dead coordinator is replaced after this).
    var leaseTTL: Double = 6
    /// Seconds between two claims (renewals) of the lease; well under `leaseTTL`.
    var leaseInterval: Double = 2
}
