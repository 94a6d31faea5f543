//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One follow removed by a block, an unfollow, a denial or a deletion (for the events and LIVE's indexes).
public struct RemovedFollow: Sendable, Equatable {
    public var followerId: Int64
    public var followeeId: Int64
    public var wasActive: Bool
}
