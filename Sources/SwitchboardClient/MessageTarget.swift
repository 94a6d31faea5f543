//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Where a message goes: a conversation, or a friend (their direct conversation, created on first use).
public enum MessageTarget: Sendable, Equatable {
    case conversation(Int64)
    case user(Int64)
}
