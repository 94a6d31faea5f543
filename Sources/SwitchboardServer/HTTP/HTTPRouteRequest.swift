//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardWebSocket

/// A request as a `handler` route sees it: immutable, read off the loop.
struct HTTPRouteRequest: Sendable {
    /// The method (`GET`, `HEAD` for a `GET` route answered without its body, ...).
    var method: String
    /// The path without the query.
    var path: String
    /// The path's parameters by name (`id` of `/photos/{id}/info`).
    var parameters: PathParameters
    /// The query's items (`a=1&b=2`; no percent-decoding).
    var query: [String: String]
    /// The request's headers.
    var headers: HTTPHeaders
    /// The authenticated user for a `bearer` route (nil otherwise).
    var identity: Identity?
    /// The body for an `upload` route (empty otherwise).
    var body: [UInt8]

    /// The path parameter `name` as an id: digits only (no sign), at most 18 of them; nil otherwise (never a trap,
    /// and "+1" is not 1).
    func id(_ name: String) -> Int64? {
        guard let text = parameters[name], !text.isEmpty, text.utf8.count <= 18,
            text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Int64(text)
    }
}
