//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Active-hours statistics: `stats.active_hours` and `stats.active_day` (docs/protocol.md "Active hours"). The
/// handlers decode and ask `ActiveHoursService`; the recorder (`ActiveHoursRecorder`, fed by presence, started
/// with the server) is shared infrastructure (`ProtocolServices.activeHours`).
struct ActiveHoursFeature: Feature {
    static let migrations: [Migration] = [.v0010ActiveHours]

    /// The statistics' reads.
    let service: ActiveHoursService
    /// Seconds between checkpoints of open intervals (`--active-hours-checkpoint`), for the configuration group.
    let checkpointInterval: Double

    init(context: ProtocolServices) {
        service = ActiveHoursService(db: context.pool, recorder: context.activeHours)
        checkpointInterval = context.configuration.activeHours.checkpointInterval
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(ActiveHoursAccountData.deletionSteps)
        registry.add(ActiveHoursAccountData.exportSection)
        registry.configuration.append(
            ConfigurationGroup(
                feature: "active-hours", values: [("active-hours-checkpoint", "\(checkpointInterval)")]))
        let service = self.service
        registry.operations.register(Ops.StatsActiveHours.self) { s, p async throws(ActiveHoursError) in
            try await service.activeHours(viewer: s.userId, user: p.userId, from: p.from, to: p.to)
        }
        registry.operations.register(Ops.StatsActiveDay.self) { s, p async throws(ActiveHoursError) in
            try await service.activeDay(viewer: s.userId, user: p.userId, date: p.date)
        }
    }
}
