//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import SwitchboardCore
import SwitchboardProtocol

/// The server's features and what they registered, built once when the server is made, then read-only: the op
/// router every connection dispatches with, the HTTP routes, the deletion steps and export sections, and the
/// features' lifecycle hooks. Every `/ws` connection holds it (`ProtocolApplication.application`).
final class ServerApplication: Sendable {
    /// The shared infrastructure and engines the features were built with.
    let services: ProtocolServices
    /// Every feature, in `ServerFeatures.all`'s order.
    let features: [any Feature]
    /// The ops and their handlers.
    let router: OperationRouter
    /// The HTTP routes.
    let routes: HTTPRouter
    /// Every feature's account-deletion steps, in the order a job runs them.
    let deletionSteps: [AccountDeletionStep]
    /// Every feature's export sections.
    let exportSections: [AccountExportSection]
    /// Started with the server, stopped when it drains.
    let lifecycle: [FeatureLifecycle]
    /// The features' limits (logged at start-up).
    let configuration: [ConfigurationGroup]

    init(services: ProtocolServices, logger: Logger) {
        self.services = services
        let features = ServerFeatures.all.map { $0.init(context: services) }
        var registry = FeatureRegistry(strings: services.configuration.stringParameters)
        for feature in features { feature.register(in: &registry) }
        self.features = features
        router = registry.operations
        routes = registry.routes
        deletionSteps = registry.orderedDeletionSteps
        exportSections = registry.exportSections.sorted { $0.order < $1.order }
        lifecycle = registry.lifecycle
        configuration = registry.configuration
        for feature in features { feature.registered(registry) }
        for group in configuration {
            logger.debug(
                "feature limits",
                metadata: Dictionary(uniqueKeysWithValues: group.values.map { ($0.name, .string($0.value)) })
                    .merging(["feature": .string(group.feature)]) { a, _ in a })
        }
    }

    /// The traits of every registered op, by name.
    var registeredOperations: [OperationTraits] {
        router.routes.values.map(\.traits).sorted { $0.name < $1.name }
    }
}
