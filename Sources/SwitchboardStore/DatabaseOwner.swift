//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The owner key of the database work a task does: ``DatabasePool``'s async variants take it as their default
/// `key`, so that the pool serves owners in turn and bounds each one's share (``FairLeaseQueue``). The server binds
/// it to the request's connection around each request task; work outside such a task has none (the keyless class).
public enum DatabaseOwner {
    /// The current task's owner key (nil: none).
    @TaskLocal public static var key: UInt64?
}
