//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Migration 18: phone verification codes (`verification.start`), one live code per phone number and purpose,
    /// stored only as a salted SHA-256; swept once expired (`VerificationRepository.sweepExpired`).
    public static let v0018PhoneVerifications = Migration(
        version: 18, name: "phone verification codes",
        sql: """
            CREATE TABLE phone_verifications (
                phone         TEXT NOT NULL,
                purpose       TEXT NOT NULL,
                salt          BYTEA NOT NULL,
                code_hash     BYTEA NOT NULL,
                attempts_left INTEGER NOT NULL,
                expires_at    TIMESTAMPTZ NOT NULL,
                created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
                PRIMARY KEY (phone, purpose)
            );
            CREATE INDEX phone_verifications_expiry ON phone_verifications (expires_at);
            """
    )
}
