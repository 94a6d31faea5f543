//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol

// The store's records of friends as the wire's types (same fields; `WireCompatibilityTests` compares their
// encodings).

extension PendingFriendRequest {
    /// A stored pending request on the wire.
    init(_ r: FriendRequest) {
        self.init(requestId: r.requestId, from: UserSummary(r.from), to: UserSummary(r.to), createdAt: r.createdAt)
    }
}

extension RegisteredContact {
    /// A matched contact on the wire.
    init(_ c: ContactMatch) { self.init(phone: c.phone, userId: c.userId, displayName: c.displayName) }
}
