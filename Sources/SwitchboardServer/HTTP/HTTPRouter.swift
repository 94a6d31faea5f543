//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardWebSocket

/// The HTTP routes the features register (`FeatureRegistry.routes`): a method and a path pattern with parameters
/// (`/photos/{id}/info`, a last `{name...}` takes the rest of the path), the route's authentication and body rule,
/// and its handler. Built once at start-up, then read-only and shared by every loop.
///
/// `HTTPSession.handle` asks the router first (after the transport's own checks: draining, trusted proxies); a
/// path no route matches goes on to the server's own endpoints (`/healthz`, `/readyz`, `/metrics`, `/ws`) and the web
/// app's files. A path that matches but not with the request's method is answered 405 with `Allow`.
///
/// Most routes are `handler` routes: the router applies the route's rules on the loop (no body unless the route
/// takes one, `Content-Length` within its limit), checks a bearer token off the loop before a byte of the body is
/// read, and runs the handler as a task whose `HTTPResult` is written back on the loop. Routes that stream or
/// answer from the loop (tus uploads, the web app's files) are `session` routes.
struct HTTPRouter: Sendable {
    /// One registered route.
    struct Route: Sendable {
        /// The methods it answers (upper case).
        let methods: [String]
        /// Its path pattern.
        let pattern: PathPattern
        /// What runs for a matching request.
        let action: Action
    }

    /// What a route does.
    enum Action: Sendable {
        /// The router applies `rules` and runs `handler` off the loop.
        case handler(rules: HTTPRouteRules, handler: @Sendable (HTTPRouteRequest) async -> HTTPResult)
        /// Runs on the connection's loop with the session, the head, the bytes read after the head and the path
        /// parameters; the handler answers (or starts reading a body) itself.
        case session(@Sendable (HTTPSession, HTTPRequestHead, UnsafeRawBufferPointer, PathParameters) -> Void)
    }

    /// The outcome of a look-up.
    enum Match {
        /// A route for this method and path.
        case found(Route, PathParameters)
        /// Routes for this path, none for this method: 405 with these methods in `Allow`.
        case methodNotAllowed([String])
        /// No route for this path.
        case notFound
    }

    private(set) var routes: [Route] = []

    init() {}

    /// Registers a route that the router runs off the loop.
    /// - Parameters:
    ///   - methods: The methods it answers (`HEAD` answers like `GET` without the body when `GET` is listed).
    ///   - path: Its pattern (`/photos/{id}/info`).
    ///   - rules: Its authentication and body rule.
    ///   - handler: Makes the response; never called on a loop.
    mutating func add(
        _ methods: [String], _ path: String, _ rules: HTTPRouteRules = HTTPRouteRules(),
        handler: @escaping @Sendable (HTTPRouteRequest) async -> HTTPResult
    ) {
        add(
            Route(
                methods: Self.expand(methods), pattern: PathPattern(path),
                action: .handler(rules: rules, handler: handler)))
    }

    /// Registers a route that runs on the connection's loop with the session (streaming bodies, tus). `methods`
    /// `["*"]` takes every method (the handler answers 405 itself).
    mutating func addSession(
        _ methods: [String], _ path: String,
        _ handler: @escaping @Sendable (HTTPSession, HTTPRequestHead, UnsafeRawBufferPointer, PathParameters) -> Void
    ) {
        add(Route(methods: methods, pattern: PathPattern(path), action: .session(handler)))
    }

    private mutating func add(_ route: Route) {
        for existing in routes where existing.pattern == route.pattern {
            precondition(
                Set(existing.methods).isDisjoint(with: route.methods),
                "HTTP route \(route.pattern) registered twice for \(route.methods)")
        }
        routes.append(route)
    }

    /// `HEAD` with every `GET`.
    private static func expand(_ methods: [String]) -> [String] {
        methods.contains("GET") && !methods.contains("HEAD") ? methods + ["HEAD"] : methods
    }

    /// The route for `method` and `path` (the path without its query).
    func match(method: String, path: String) -> Match {
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            if route.methods.contains(method) || route.methods == ["*"] { return .found(route, parameters) }
            allowed += route.methods
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}
