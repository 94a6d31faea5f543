//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
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
            cached: "UPDATE users SET last_seen_at = now() WHERE id = ANY($1::bigint[])",
            [.text(MessageStore.bigintArray(users.map { Optional($0) }))])
    }
}

extension UserRepository {
    /// Registers a user; its id, or nil when the phone number is taken.
    public static func insert(_ db: PostgresConnection, phone: String, passwordHash: String, displayName: String) throws
        -> Int64?
    {
        try db.execute(
            cached: """
                INSERT INTO users (phone, password_hash, display_name) VALUES ($1, $2, $3)
                ON CONFLICT (phone) DO NOTHING RETURNING id
                """,
            [.text(phone), .text(passwordHash), .text(displayName)]
        ).decodeFirst(Int64.self)
    }

    /// The id and encoded password hash of the user with this phone number, or nil.
    public static func credentials(_ db: PostgresConnection, phone: String) throws -> (
        userId: Int64, passwordHash: String
    )? {
        guard
            let r = try db.execute(cached: "SELECT id, password_hash FROM users WHERE phone = $1", [.text(phone)]).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// The phone number and encoded password hash of a live (not deleted) user, or nil: what checking its password
    /// again needs (`account.delete`).
    public static func passwordCheck(_ db: PostgresConnection, userId: Int64) throws -> (
        phone: String, passwordHash: String
    )? {
        guard
            let r = try db.execute(
                cached: "SELECT phone, password_hash FROM users WHERE id = $1 AND deleted_at IS NULL", [.int(userId)]
            ).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// A user's profile (with the phone number), or nil.
    public static func profile(_ db: PostgresConnection, of userId: Int64) throws -> Profile? {
        guard
            let r = try db.execute(
                cached: "SELECT u.id, u.display_name, u.phone FROM users u WHERE u.id = $1", [.int(userId)]
            ).first
        else { return nil }
        return Profile(
            userId: try r.decode(column: 0), displayName: try r.decode(column: 1), phone: try r.decode(column: 2))
    }

    /// Sets a user's display name; the phone number (nil when there is no such user or no phone).
    public static func setDisplayName(_ db: PostgresConnection, of userId: Int64, to name: String) throws -> String? {
        try db.execute(
            cached: "UPDATE users SET display_name = $2 WHERE id = $1 RETURNING phone", [.int(userId), .text(name)]
        )
        .decodeFirst(String?.self) ?? nil
    }

    /// Display names of these users (missing ids are absent).
    public static func displayNames(_ db: PostgresConnection, of users: [Int64]) throws -> [Int64: String] {
        var byId: [Int64: String] = [:]
        for r in try db.execute(
            cached: "SELECT id, display_name FROM users WHERE id = ANY($1::bigint[])",
            [.text(MessageStore.bigintArray(users.map { Optional($0) }))])
        {
            byId[try r.decode(Int64.self, column: 0)] = try r.decode(String.self, column: 1)
        }
        return byId
    }

    /// Registered users with these (normalised) phone numbers, except `excluding`, in phone order.
    public static func matchPhones(_ db: PostgresConnection, _ phones: [String], excluding: Int64) throws
        -> [ContactMatch]
    {
        // A text[] literal built from normalised numbers ("+" and digits only), passed as one parameter.
        try db.execute(
            cached:
                "SELECT phone, id, display_name FROM users WHERE phone = ANY($1::text[]) AND id <> $2 ORDER BY phone",
            [.text("{" + phones.joined(separator: ",") + "}"), .int(excluding)]
        ).map {
            ContactMatch(
                phone: try $0.decode(column: 0), userId: try $0.decode(column: 1), displayName: try $0.decode(column: 2)
            )
        }
    }

    /// The user with this phone number (when `phone` is given) or this id: id and display name, or nil (also for a
    /// deleted account's stub).
    public static func find(_ db: PostgresConnection, phone: String?, id: Int64?) throws -> (
        userId: Int64, displayName: String
    )? {
        guard
            let r = try db.execute(
                cached: """
                    SELECT id, display_name FROM users
                    WHERE deleted_at IS NULL
                    AND (($1::text IS NOT NULL AND phone = $1) OR ($1::text IS NULL AND id = $2))
                    """,
                [phone.map { .text($0) }, .int(id ?? -1)]
            ).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// A user's stored time zone and locale (nil: never set, meaning `UTC` and `en-US`).
    public static func preferences(_ db: PostgresConnection, of userId: Int64) throws -> (
        timeZone: String?, locale: String?
    )? {
        guard let r = try db.execute(cached: "SELECT time_zone, locale FROM users WHERE id = $1", [.int(userId)]).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// Sets whichever of a live user's display name, time zone and locale are given (in one statement); false
    /// when there is no such live user.
    public static func updateProfile(
        _ db: PostgresConnection, of userId: Int64, displayName: String?, timeZone: String?, locale: String?
    ) throws -> Bool {
        try db.execute(
            cached: """
                UPDATE users SET display_name = coalesce($2::text, display_name),
                time_zone = coalesce($3::text, time_zone), locale = coalesce($4::text, locale)
                WHERE id = $1 AND deleted_at IS NULL RETURNING id
                """,
            [
                .int(userId), displayName.map(PostgresData.text), timeZone.map(PostgresData.text),
                locale.map(PostgresData.text),
            ]
        ).first != nil
    }

    /// Replaces a live user's password hash; whether the user exists (`password.reset`).
    public static func setPasswordHash(_ db: PostgresConnection, of userId: Int64, to passwordHash: String) throws
        -> Bool
    {
        try db.execute(
            cached: "UPDATE users SET password_hash = $2 WHERE id = $1 AND deleted_at IS NULL",
            [.int(userId), .text(passwordHash)]
        ).affectedRows == 1
    }
}
