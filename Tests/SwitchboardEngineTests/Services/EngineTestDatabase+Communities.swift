//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

@testable import SwitchboardServer

/// What the services of moderation, communities, events and courses need from the test database: administrators,
/// communities with members, a message to report, SQL the protocol does not offer.
extension EngineTestDatabase {
    /// Makes `userId` an administrator (as `switchboard admin grant` does).
    func makeAdministrator(_ userId: Int64) async throws {
        try await run("UPDATE users SET role = 'admin' WHERE id = $1", userId)
    }

    /// Suspends `userId` (a suspended administrator is no administrator).
    func suspend(_ userId: Int64) async throws {
        try await run("UPDATE users SET suspended_at = now() WHERE id = $1", userId)
    }

    /// A new community made by the administrator `admin` (a unique name), joined by `members`; its id.
    func community(by admin: Int64, members: [Int64] = [], core: [Int64] = []) async throws -> Int64 {
        let communities = CommunityService(db: try pool, limits: CommunityConfiguration())
        let name = "Test \(UUID().uuidString.prefix(12))"
        let created = try await communities.create(
            Caller(userId: admin), name: name, description: nil, category: nil, picture: nil)
        let id = created.community.communityId
        for member in members + core { _ = try await communities.join(Caller(userId: member), communityId: id) }
        for member in core {
            _ = try await communities.setCore(Caller(userId: admin), communityId: id, userId: member, core: true)
        }
        return id
    }

    /// A group conversation of `members` holding one text message of `sender` (seq 1, which every member sees);
    /// the message's id.
    func message(from sender: Int64, in members: [Int64], text: String = "hello") async throws -> Int64 {
        let list = "{" + members.map(String.init).joined(separator: ",") + "}"
        return try await pool.withConnection { db in
            guard
                let id = try db.query(
                    """
                    WITH c AS (
                        INSERT INTO conversations (kind, name, created_by, last_seq)
                        VALUES ('group', 'moderation', $1, 1) RETURNING id),
                    m AS (
                        INSERT INTO members (conversation_id, user_id, joined_seq)
                        SELECT c.id, u, 0 FROM c, unnest($2::bigint[]) AS u)
                    INSERT INTO messages (conversation_id, seq, sender_id, kind, body)
                    SELECT c.id, 1, $1, 'text', $3 FROM c RETURNING id
                    """, [.int(sender), .text(list), .text(text)]
                ).decodeFirst(Int64.self)
            else { throw EngineTestError.noRow }
            return id
        }
    }

    /// One integer from `sql` with the parameters `values`.
    func integer(_ sql: String, _ values: Int64...) async throws -> Int64 {
        try await pool.withConnection { db in
            guard let value = try db.query(sql, values.map { .int($0) }).decodeFirst(Int64.self) else {
                throw EngineTestError.noRow
            }
            return value
        }
    }

    /// Runs `sql` with the parameters `values`.
    func run(_ sql: String, _ values: Int64...) async throws {
        try await pool.withConnection { db in _ = try db.query(sql, values.map { .int($0) }) }
    }
}
