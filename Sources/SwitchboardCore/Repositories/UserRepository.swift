//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardStore

/// The SQL of the users table that the services outside accounts need.
public enum UserRepository {
    /// A user's display name, or nil when there is no such user.
    public static func displayName(_ db: PostgresConnection, of user: Int64) throws -> String? {
        try db.execute(cached: "SELECT display_name FROM users WHERE id = $1", [.int(user)]).decodeFirst(String.self)
    }

    /// Sets the users' last-seen time to now.
    public static func touchLastSeen(_ db: PostgresConnection, users: some Sequence<Int64>) throws {
        try db.execute(
            cached: "UPDATE users SET last_seen_at = now() WHERE id = ANY($1::bigint[])", [.text(MessageStore.bigintArray(users.map { Optional($0) }))])
    }
}
