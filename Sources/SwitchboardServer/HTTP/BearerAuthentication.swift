//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

/// The session token of an HTTP request (`Authorization: Bearer <token>`), checked like `authenticate`: the one
/// authentication of every HTTP route that needs a user (voice, photos, uploads, exports, `bearer` routes).
struct BearerAuthentication: Sendable {
    let accounts: IdentityService

    /// The token of an `Authorization` header, or nil when there is none or it is not a bearer token.
    static func token(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }

    /// The user whose live session the token is, or the refusal to answer with: 401 without a token or with an
    /// unknown or revoked one, 503 while the database does not answer. A database query: never on a loop queue.
    func identity(_ authorization: String?) async -> Result<Identity, HTTPResult> {
        guard let token = Self.token(authorization) else {
            return .failure(
                HTTPResult.error(
                    401, "not_authenticated", "send the session token as Authorization: Bearer <token>",
                    headers: [("WWW-Authenticate", "Bearer")]))
        }
        do throws(IdentityError) {
            return .success(try await accounts.authenticate(token: token).0)
        } catch {
            let error = error.wire
            if error.code == .invalidToken {
                return .failure(
                    HTTPResult.error(
                        401, "invalid_token", error.message,
                        headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\"")]
                    ))
            }
            return .failure(HTTPResult.error(503, error.code.rawValue, error.message, headers: [("Retry-After", "2")]))
        }
    }
}
