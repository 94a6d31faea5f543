//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What `account.delete` committed: the sessions it revoked and who should hear of it.
public struct DeletionRequest: Sendable, Equatable {
    /// Sessions revoked by the request (their connections are closed with 4005).
    public var sessionIds: [Int64]
    /// Friends at the time of the request (presence forgets them).
    public var friendIds: [Int64]
    /// Friends and other members of the user's conversations (told with `user.deleted`).
    public var contactIds: [Int64]
}
