//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardStore

/// A feature of the server (`Features/<Feature>/`): it owns its slice and registers it at start-up. Built once
/// with the server's shared services (`init(context:)`), it keeps its own service, limits and rate limiters, and
/// fills the registry with its ops, HTTP routes, account-deletion steps, export sections, configuration and
/// lifecycle hooks. `ServerFeatures.all` lists every feature: the only central line a new feature adds.
///
/// Migrations are the one static part: they run before any feature is built (`switchboard` applies them when it
/// opens the database, before the engines and features that use the tables exist).
protocol Feature: Sendable {
    /// The feature's migrations, each in a file of its own under `SwitchboardCore/<Feature>/Migrations/`; their
    /// versions are global (one order across features, checked at start-up).
    static var migrations: [Migration] { get }

    /// Builds the feature with the server's shared infrastructure and engines.
    init(context: ProtocolServices)

    /// Registers the feature's ops, HTTP routes, deletion steps, export sections, configuration and hooks.
    func register(in registry: inout FeatureRegistry)

    /// Called once every feature has registered, with the whole registry (account deletion runs every feature's
    /// steps). Does nothing by default.
    func registered(_ registry: FeatureRegistry)
}

extension Feature {
    static var migrations: [Migration] { [] }
    func registered(_ registry: FeatureRegistry) {}
}
