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

/// Handles: `handle.set`, `handle.check` (docs/protocol.md, "Profiles, handles and follows"). `register`'s
/// `handle`, `profile.get` by handle and `profile.update`'s social fields live in `IdentityFeature`.
struct ProfilesFeature: Feature {
    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.operations.register(Ops.HandleSet.self) { s, p async throws(ServiceError) -> ProfileResult in
            try AccountService.checkHandle(p.handle)
            let me = s.userId
            let profile: Profile
            do {
                profile = try await s.services.accounts.pool.transaction { db -> Profile in
                    guard try SocialGraphRepository.setHandle(db, me, p.handle) else { throw ServiceError(.handleTaken, "this handle is taken") }
                    guard var profile = try UserRepository.profile(db, of: me) else { throw ServiceError(.notFound, "no such user") }
                    try SocialGraphRepository.decorate(db, &profile, viewer: me)
                    return profile
                }
            } catch { throw ServiceError.from(error) }
            // `profile.updated` (now with the handle) to own devices and friends, without the phone number.
            let friendIds = try await s.services.friends.friends(of: me).map(\.userId)
            let event = ServerEvent.ProfileUpdated(profile: UserProfile(userId: me, displayName: profile.displayName, handle: profile.handle))
            s.services.deliveries.push(
                PushEvent(users: friendIds + [me], bytes: ProtocolCodec.encodeEvent(event)))
            return ProfileResult(profile: UserProfile(profile))
        }
        registry.operations.register(Ops.HandleCheck.self) { s, p async throws(ServiceError) -> HandleCheckResult in
            if let problem = Handle.validate(p.handle) {
                return HandleCheckResult(handle: p.handle, available: false, reason: problem.rawValue)
            }
            let me = s.userId
            let taken: Bool
            do {
                taken = try await s.services.accounts.pool.withConnection { db in try SocialGraphRepository.handleTaken(db, p.handle, by: me) }
            } catch { throw ServiceError.from(error) }
            return HandleCheckResult(handle: p.handle, available: !taken, reason: taken ? Handle.Problem.taken.rawValue : nil)
        }
    }
}
