//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol

// The store's records of accounts as the wire's types (same fields; `WireCompatibilityTests` compares their
// encodings). Other features show profiles too (photos, timelines, follows, handles).

extension UserProfile {
    /// A stored profile on the wire.
    init(_ p: Profile) {
        self.init(
            userId: p.userId, displayName: p.displayName, phone: p.phone, role: p.role, timeZone: p.timeZone,
            locale: p.locale, handle: p.handle, bio: p.bio, protected: p.protected, dmPolicy: p.dmPolicy,
            stats: p.stats, relationship: p.relationship, avatar: p.avatar)
    }
}

extension UserSummary {
    /// A stored profile's id and display name.
    init(_ p: Profile) { self.init(userId: p.userId, displayName: p.displayName) }
    /// A friend of the list.
    init(_ f: Friend) { self.init(userId: f.userId, displayName: f.displayName, avatarPhotoId: f.avatarPhotoId) }
}

extension DeviceSession {
    /// A stored session on the wire.
    init(_ s: SessionInfo) {
        self.init(
            sessionId: s.sessionId, device: s.device, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt,
            current: s.current)
    }
}
