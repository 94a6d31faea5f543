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

    init(authentication: Authentication = .none, body: Body = .none) {
        self.authentication = authentication
        self.body = body
    }

    /// A bearer token, no body.
    static let bearer = HTTPRouteRules(authentication: .bearer)
}

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

/// A path's parameters by name.
struct PathParameters: Sendable {
    private var values: [(String, String)] = []

    init() {}

    /// The value of `name`, or nil.
    subscript(_ name: String) -> String? {
        values.first { $0.0 == name }?.1
    }

    fileprivate mutating func set(_ name: String, _ value: String) { values.append((name, value)) }
}

/// A route's path: literal segments, `{name}` for one segment (possibly empty) and a last `{name...}` for the rest
/// of the path (possibly empty, slashes included).
struct PathPattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    let segments: [Segment]
    let description: String

    init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "a path pattern starts with /")
        description = pattern
        let parts = pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var segments: [Segment] = []
        for (index, part) in parts.enumerated() {
            if part.hasPrefix("{") && part.hasSuffix("...}") {
                precondition(index == parts.count - 1, "{name...} is the last segment of \(pattern)")
                segments.append(.rest(String(part.dropFirst().dropLast(4))))
            } else if part.hasPrefix("{") && part.hasSuffix("}") {
                segments.append(.parameter(String(part.dropFirst().dropLast())))
            } else {
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
    }

    /// The parameters when `path` matches, nil otherwise.
    func match(_ path: String) -> PathParameters? {
        guard path.hasPrefix("/") else { return nil }
        var rest = Substring(path.dropFirst())
        var parameters = PathParameters()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            if case .rest(let name) = segment {
                parameters.set(name, String(rest))
                return parameters
            }
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            let part = rest[..<end]
            switch segment {
            case .literal(let text): guard part == text else { return nil }
            case .parameter(let name): parameters.set(name, String(part))
            case .rest: break
            }
            if last { return end == rest.endIndex ? parameters : nil }
            guard end != rest.endIndex else { return nil }
            rest = rest[rest.index(after: end)...]
        }
        return rest.isEmpty ? parameters : nil
    }
}
