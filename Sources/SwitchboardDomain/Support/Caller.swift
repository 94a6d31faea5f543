//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Who asks a service for something: the authenticated user and session, the client's address, and how many nodes
/// share the user's rate limits (a cluster divides each user's allowance by the nodes the user is connected to).
public struct Caller: Sendable, Equatable {
    /// The user.
    public var userId: Int64
    /// The user's session.
    public var sessionId: Int64
    /// The client's address without port (per-address limits).
    public var address: String
    /// The nodes sharing the user's rate limits (1 on a single node).
    public var limitShare: Int

    public init(userId: Int64, sessionId: Int64 = 0, address: String = "", limitShare: Int = 1) {
        self.userId = userId
        self.sessionId = sessionId
        self.address = address
        self.limitShare = limitShare
    }
}
