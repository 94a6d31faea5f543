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

/// Handles' use cases (docs/protocol.md, "Profiles, handles and follows"): choosing one's handle and checking one.
/// A handle is 3-30 letters, digits or underscores, not reserved (`Handle`), unique case-insensitively (the unique
/// index decides under concurrency). Choosing one tells the caller's devices and friends `profile.updated`.
/// Off the loops only.
final class HandleService: Sendable {
    let db: any Database

    init(db: any Database) {
        self.db = db
    }

    /// `handle.set`: the caller's own profile with its new handle; its devices and friends hear `profile.updated`
    /// (name and handle only: never the phone number).
    func setHandle(_ caller: Caller, handle: String) async throws(HandleError) -> (ProfileResult, [DomainEvent]) {
        switch Handle.validate(handle) {
        case nil: break
        case .reserved: throw .reserved
        default: throw .invalid
        }
        let me = caller.userId
        let (profile, friendIds) = try await db.write(as: HandleError.self) { db -> (Profile, [Int64]) in
            guard try SocialGraphRepository.setHandle(db, me, handle) else { throw HandleError.taken }
            guard var profile = try UserRepository.profile(db, of: me) else { throw HandleError.noSuchUser }
            try SocialGraphRepository.decorate(db, &profile, viewer: me)
            return (profile, try FriendRepository.friends(db, of: me).map(\.userId))
        }
        let shown = UserProfile(userId: me, displayName: profile.displayName, handle: profile.handle)
        let event = DomainEvent(to: friendIds + [me], ServerEvent.ProfileUpdated(profile: shown))
        return (ProfileResult(profile: UserProfile(profile)), [event])
    }

    /// `handle.check`: whether `handle` may be chosen by the caller, and why not.
    func check(_ caller: Caller, handle: String) async throws(HandleError) -> HandleCheckResult {
        if let problem = Handle.validate(handle) {
            return HandleCheckResult(handle: handle, available: false, reason: problem.rawValue)
        }
        let me = caller.userId
        let taken = try await db.read(as: HandleError.self) { db in
            try SocialGraphRepository.handleTaken(db, handle, by: me)
        }
        return HandleCheckResult(handle: handle, available: !taken, reason: taken ? Handle.Problem.taken.rawValue : nil)
    }
}
