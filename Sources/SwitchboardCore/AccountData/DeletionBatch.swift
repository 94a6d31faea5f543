//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What one batch of a deletion step did.
public struct DeletionBatch: Sendable {
    /// Rows changed; 0 means the step is done.
    public var changed: Int
    /// Runs after the batch's commit, off the loops (files to remove, live pages to tell).
    public var afterCommit: (@Sendable () -> Void)?

    public init(changed: Int, afterCommit: (@Sendable () -> Void)? = nil) {
        self.changed = changed
        self.afterCommit = afterCommit
    }
}
