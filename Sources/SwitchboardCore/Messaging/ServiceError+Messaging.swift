//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain

extension ServiceError {
    /// The one answer for a conversation the caller cannot see, whether it exists or not: a stranger must not
    /// learn which conversation ids exist (`not_member`, documented as "not a member, or no such conversation").
    public static let notMember = ServiceError(.notMember, "not a member, or no such conversation")
    /// The one answer for a message the caller cannot see, whether it exists or not.
    public static let noSuchMessage = ServiceError(.notFound, "no such message")
    /// A message from an account whose deletion committed before the message's batch locked the account: its
    /// sessions are revoked and its connections are being closed (4005).
    public static let accountDeleted = ServiceError(.notAuthenticated, "the account was deleted")
    /// `login` and `authenticate` of a suspended account (moderation).
    public static let accountSuspended = ServiceError(.accountSuspended, "this account is suspended")
}
