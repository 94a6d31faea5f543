//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain
public import SwitchboardStore

/// The SQL of phone verification codes (`phone_verifications`): one live code per phone number and purpose.
public enum VerificationRepository {
    /// A stored code as checked: its salt and hash, and whether it may still be used (not expired, attempts left).
    public struct StoredCode: Sendable {
        public let salt: [UInt8]
        public let hash: [UInt8]
        public let usable: Bool
    }

    /// Stores `code` for the number and purpose (replacing an earlier one): valid `ttl` seconds from now, for
    /// `attempts` tries.
    public static func store(
        _ db: PostgresConnection, phone: String, purpose: VerificationPurpose, code: VerificationCode, ttl: Double,
        attempts: Int
    ) throws {
        _ = try db.execute(
            cached: """
                INSERT INTO phone_verifications (phone, purpose, salt, code_hash, attempts_left, expires_at)
                VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
                ON CONFLICT (phone, purpose) DO UPDATE SET salt = EXCLUDED.salt, code_hash = EXCLUDED.code_hash,
                    attempts_left = EXCLUDED.attempts_left, expires_at = EXCLUDED.expires_at, created_at = now()
                """,
            [
                .text(phone), .text(purpose.rawValue), .bytea(code.salt), .bytea(code.hash), .int(Int64(attempts)),
                .double(ttl),
            ])
    }

    /// The code for the number and purpose, its row locked until the transaction ends; nil when there is none.
    public static func lock(_ db: PostgresConnection, phone: String, purpose: VerificationPurpose) throws
        -> StoredCode?
    {
        guard
            let r = try db.execute(
                cached: """
                    SELECT salt, code_hash, attempts_left > 0 AND expires_at > clock_timestamp()
                    FROM phone_verifications WHERE phone = $1 AND purpose = $2 FOR UPDATE
                    """, [.text(phone), .text(purpose.rawValue)]
            ).first
        else { return nil }
        return StoredCode(
            salt: try r.decode(PostgresBytes.self, column: 0).bytes,
            hash: try r.decode(PostgresBytes.self, column: 1).bytes, usable: try r.decode(column: 2))
    }

    /// Counts a wrong code against the number's code (at no attempt left it is dead).
    public static func recordWrongCode(_ db: PostgresConnection, phone: String, purpose: VerificationPurpose) throws {
        _ = try db.execute(
            cached: """
                UPDATE phone_verifications SET attempts_left = greatest(attempts_left - 1, 0)
                WHERE phone = $1 AND purpose = $2
                """, [.text(phone), .text(purpose.rawValue)])
    }

    /// Uses up the code stored as `hash` if it is still usable; whether it was (the caller's transaction rolls
    /// back otherwise).
    public static func consume(
        _ db: PostgresConnection, phone: String, purpose: VerificationPurpose, hash: [UInt8]
    ) throws -> Bool {
        try db.execute(
            cached: """
                DELETE FROM phone_verifications
                WHERE phone = $1 AND purpose = $2 AND code_hash = $3 AND attempts_left > 0
                    AND expires_at > clock_timestamp()
                """, [.text(phone), .text(purpose.rawValue), .bytea(hash)]
        ).affectedRows == 1
    }

    /// Deletes up to `limit` expired codes (each `verification.start` sweeps a few).
    public static func sweepExpired(_ db: PostgresConnection, limit: Int = 100) throws {
        _ = try db.execute(
            cached: """
                DELETE FROM phone_verifications WHERE ctid IN (
                    SELECT ctid FROM phone_verifications WHERE expires_at < clock_timestamp() LIMIT $1)
                """, [.int(Int64(limit))])
    }
}
