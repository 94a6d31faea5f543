//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

/// One step of an account deletion job, registered by the feature that owns the data it removes
/// (`FeatureRegistry.deletionSteps`). A job runs every step in `order`, each in bounded batches until a batch
/// changes nothing; every batch is its own transaction under the job row's lock (`AccountDeletionRepository`).
/// A step must be idempotent: a batch repeated after a crash finds nothing left to do, so a job resumes at any step.
public struct AccountDeletionStep: Sendable {
    /// The step's name, stored in the job row while it runs (`account_deletions.step`).
    public var name: String
    /// Its place among all features' steps (ascending): data that others refer to goes after them (memberships
    /// end before messages become tombstones, photos after the moments and posts that show them).
    public var order: Int
    /// One batch, inside the job's transaction: at most `limit` rows of `userId`'s data changed.
    public var batch: @Sendable (_ db: PostgresConnection, _ userId: Int64, _ limit: Int) throws -> DeletionBatch

    public init(
        name: String, order: Int,
        batch: @escaping @Sendable (_ db: PostgresConnection, _ userId: Int64, _ limit: Int) throws -> DeletionBatch
    ) {
        self.name = name
        self.order = order
        self.batch = batch
    }

    /// A step whose batch only counts the rows it changed.
    public static func rows(
        _ name: String, order: Int, _ batch: @escaping @Sendable (PostgresConnection, Int64, Int) throws -> Int
    ) -> AccountDeletionStep {
        AccountDeletionStep(name: name, order: order) { db, userId, limit in
            DeletionBatch(changed: try batch(db, userId, limit))
        }
    }
}
