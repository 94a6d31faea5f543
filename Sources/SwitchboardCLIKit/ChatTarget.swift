//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Where a chat goes.
public enum ChatTarget: Sendable, Equatable {
    /// A conversation by id.
    case conversation(Int64)
    /// A friend: their direct conversation.
    case friend(userId: Int64, name: String)
}
