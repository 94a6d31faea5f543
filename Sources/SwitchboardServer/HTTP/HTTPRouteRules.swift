//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardWebSocket

/// What a `handler` route requires of a request before its handler runs.
struct HTTPRouteRules: Sendable {
    /// Who may call it.
    enum Authentication: Sendable {
        /// Anyone.
        case none
        /// A session token as `Authorization: Bearer <token>`, checked off the loop before a byte of the body is
        /// read (401 without it or with a revoked one; 503 while the database does not answer).
        case bearer
    }

    /// What body it takes.
    enum Body: Sendable {
        /// None: a request with a body is answered 400 and its connection closed.
        case none
        /// Up to `maxBytes`, announced by `Content-Length` (411 without, 413 beyond); read into memory after the
        /// token check, holding one of the user's upload slots (503 when none is free).
        case upload(maxBytes: Int)
    }

    var authentication: Authentication = .none
    var body: Body = .none

    /// A bearer token, no body.
    static let bearer = HTTPRouteRules(authentication: .bearer)
}
