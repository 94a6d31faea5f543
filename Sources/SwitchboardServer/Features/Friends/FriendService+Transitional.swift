//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

// What features not yet moved onto their own services still call through `services.friends` (`handle.set` tells
// the caller's friends). Transitional: removed once none does.
extension FriendService {
    /// The user's friends in the list's order, with the wire error.
    func friends(of userId: Int64) async throws(ServiceError) -> [Friend] {
        do throws(FriendError) {
            return try await db.read(as: FriendError.self) { db in try FriendRepository.friends(db, of: userId) }
        } catch { throw error.wire }
    }
}
