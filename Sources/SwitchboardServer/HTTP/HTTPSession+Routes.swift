//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardTransport
import SwitchboardWebSocket

/// Running a registered HTTP route (`HTTPRouter`), on the connection's loop.
extension HTTPSession {
    /// Applies a `handler` route's rules and runs it off the loop, or hands a `session` route the request.
    func run(_ route: HTTPRouter.Route, head: HTTPRequestHead, rest: UnsafeRawBufferPointer, parameters: PathParameters)
    {
        guard case .handler(let rules, let handler) = route.action else {
            if case .session(let handle) = route.action { handle(self, head, rest, parameters) }
            return
        }
        guard let services = server.services else { return }
        let request = HTTPRouteRequest(
            method: head.method, path: head.path, parameters: parameters, query: Self.queryItems(head.query),
            headers: head.headers, identity: nil, body: [])
        switch rules.body {
        case .none:
            guard !head.isChunked, (head.contentLength ?? 0) == 0 else {
                finish(.error(400, "bad_request", "this request has no body"), keepAlive: false)
                return
            }
            let bearer = BearerAuthentication(accounts: services.accounts)
            let authorization = head.headers["authorization"]
            let needsUser = rules.authentication == .bearer
            process(keepAlive: head.keepAlive && rest.isEmpty, isHead: head.method == "HEAD") {
                var request = request
                if needsUser {
                    switch await bearer.identity(authorization) {
                    case .failure(let refusal): return refusal
                    case .success(let identity): request.identity = identity
                    }
                }
                let routed = request
                // Its writes act for the bearer's account (`ActingAccount`: refused once the account is deleted).
                return await ActingAccount.$userId.withValue(routed.identity?.userId) { await handler(routed) }
            }
        case .upload(let maxBytes):
            guard !head.isChunked, let length = head.contentLength else {
                finish(.error(411, "length_required", "send the body with a Content-Length"), keepAlive: false)
                return
            }
            guard length <= maxBytes else {
                finish(.error(413, "too_large", "the body is larger than \(maxBytes) bytes"), keepAlive: false)
                return
            }
            let bearer = BearerAuthentication(accounts: services.accounts)
            let authorization = head.headers["authorization"]
            readBody(head, rest: rest) {
                await bearer.identity(authorization).map { ($0, UploadTarget.route(request, handler)) }
            }
        }
    }
}
