//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What `switchboard-cli` keeps per profile: the server and the session (the token is a credential).
public struct Profile: Codable, Sendable, Equatable {
    /// The server URL (`ws://127.0.0.1:8080/ws`).
    public var server: String
    /// The session token (`Authorization: Bearer` and `authenticate`).
    public var token: String
    public var userId: Int64
    public var sessionId: Int64
    public var phone: String?
    public var displayName: String?

    public init(server: String, token: String, userId: Int64, sessionId: Int64, phone: String?, displayName: String?) {
        self.server = server
        self.token = token
        self.userId = userId
        self.sessionId = sessionId
        self.phone = phone
        self.displayName = displayName
    }
}
