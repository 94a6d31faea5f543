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

/// Handles: `handle.set`, `handle.check` (docs/protocol.md, "Profiles, handles and follows"). Each handler decodes,
/// asks `HandleService`, delivers its events and replies. `register`'s `handle`, `profile.get` by handle and
/// `profile.update`'s social fields live in `IdentityFeature`.
struct ProfilesFeature: Feature {
    let service: HandleService

    init(context: ProtocolServices) {
        service = HandleService(db: context.pool)
    }

    func register(in registry: inout FeatureRegistry) {
        let service = self.service
        registry.operations.register(Ops.HandleSet.self) { s, p async throws(HandleError) -> ProfileResult in
            let (result, events) = try await service.setHandle(s.caller, handle: p.handle)
            s.deliver(events)
            return result
        }
        registry.operations.register(Ops.HandleCheck.self) { s, p async throws(HandleError) -> HandleCheckResult in
            try await service.check(s.caller, handle: p.handle)
        }
    }
}
