//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

/// Limits of the social graph (`--follow-burst`, `--follow-refill`, `--max-following`; docs/protocol.md, "Profiles,
/// handles and follows"). Immutable once the server runs.
public struct SocialGraphConfiguration: Sendable, Equatable {
    /// `follow` and `unfollow` per user: a burst, then one per `followRefillSeconds`.
    public var followBurst = 50
    public var followRefillSeconds: Double = 20
    /// Follows (active and pending) one user may have.
    public var maxFollowing = 5000
    /// Users per page of the lists by default and at most.
    public var defaultPage = 20
    public var maxPage = 100

    public init() {}
}
