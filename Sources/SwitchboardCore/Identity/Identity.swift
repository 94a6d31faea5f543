//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An authenticated connection's identity: its user and session.
public struct Identity: Sendable, Equatable {
    /// The user.
    public var userId: Int64
    /// The session the connection authenticated with.
    public var sessionId: Int64

    public init(userId: Int64, sessionId: Int64) {
        self.userId = userId
        self.sessionId = sessionId
    }
}
