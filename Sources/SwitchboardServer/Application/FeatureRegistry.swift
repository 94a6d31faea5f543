//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol

/// What the features register at start-up; read-only once the server runs.
struct FeatureRegistry {
    /// The protocol ops and their handlers (`docs/protocol.md`).
    var operations: OperationRouter
    /// The HTTP routes (voice, photos, uploads, exports, ...).
    var routes = HTTPRouter()
    /// Every feature's account-deletion steps (run in `order`; `docs/protocol.md`, "Account deletion and export").
    var deletionSteps: [AccountDeletionStep] = []
    /// Every feature's data-export sections (written in `order`).
    var exportSections: [AccountExportSection] = []
    /// Work to start with the server and stop with it (sweeps, recorders), in registration order.
    var lifecycle: [FeatureLifecycle] = []
    /// The limits each feature runs with, logged at start-up (`docs/configuration.md` has every flag).
    var configuration: [ConfigurationGroup] = []

    init(strings: StringParameterLimits = .init()) { operations = OperationRouter(strings: strings) }

    /// Adds a deletion step; a name used twice is a programming error.
    mutating func add(_ step: AccountDeletionStep) {
        precondition(!deletionSteps.contains { $0.name == step.name }, "deletion step \(step.name) registered twice")
        deletionSteps.append(step)
    }

    /// Adds deletion steps.
    mutating func add(_ steps: [AccountDeletionStep]) {
        for step in steps { add(step) }
    }

    /// Adds an export section.
    mutating func add(_ section: AccountExportSection) {
        exportSections.append(section)
    }

    /// The deletion steps in the order a job runs them.
    var orderedDeletionSteps: [AccountDeletionStep] { deletionSteps.sorted { $0.order < $1.order } }
}
