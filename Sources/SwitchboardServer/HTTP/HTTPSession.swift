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

/// One client connection: HTTP/1.1 requests until an upgrade, then WebSocket frames.
///
/// Everything here runs on the connection's loop queue (asserted by the transport's entry points).
final class HTTPSession: ConnectionHandler, LoopAnchored {
    enum Phase {
        /// Reading request heads (the parser is `request.parser`, out of line: the phase stays 25 bytes).
        case http
        /// Discarding `remaining` body bytes of a request we answered, then back to `.http`.
        case skippingBody(remaining: Int, keepAlive: Bool)
        case websocket(WebSocketConnection, any WebSocketApplication)
        /// An upload's token (voice, photo, or a tus PATCH's upload) is being checked off the loop before its body
        /// is read; reading is paused.
        /// `pending` holds body bytes that arrived with the head (or in TLS records decrypted with it).
        case authorizing(pending: [UInt8])
        /// Receiving an upload's body (its token checked, an upload slot held). The request is boxed: every
        /// connection's phase is as large as its largest case (184 bytes with the head inline, 41 without).
        case uploading(UploadRequest, body: [UInt8], remaining: Int)
        /// A voice or photo request is being processed off the loop; reading is paused.
        case processing(keepAlive: Bool)
        case closing
    }

    /// Strong: a write that fails closes (and would free) the connection in the middle of a call here. The
    /// cycle with `Connection.handler` is broken when the connection closes (it drops its handler).
    let connection: Connection
    let context: LoopContext
    // protected by connection.loop.queue. Unchecked exclusivity: read for every delivery; each access is a load, a
    // store or a `switch` that binds copies, and none overlaps another.
    @exclusivity(unchecked) var phase: Phase
    // protected by connection.loop.queue: the timers and counts of HTTP requests, out of line and released when the
    // connection becomes a WebSocket (an idle WebSocket holds one pointer instead of 56 bytes)
    @OutOfLine var request: HTTPRequestState
    // protected by connection.loop.queue: behind a trusted proxy, the client its `X-Forwarded-For` names
    // (`TrustedProxies`); set per request, nil without trusted proxies. Boxed: 8 bytes, not a String's 16, in every
    // connection.
    private var forwardedClient: ForwardedClient?
    // protected by connection.loop.queue: made by the first `LoopBound` (uploads), released when the connection closes
    private var anchor: LoopAnchor<HTTPSession>?

    /// The client's address (no port) for per-address limits: the peer's, or behind a trusted proxy the one it
    /// forwarded for. Read only when a limit needs it (no `getpeername` per accepted connection).
    var clientAddress: String { forwardedClient?.address ?? TrustedProxies.stripPort(connection.remoteAddress) }

    init(connection: Connection, context: LoopContext) {
        self.connection = connection
        self.context = context
        phase = .http
        request.parser = HTTPHeadParser(limits: context.server.parserLimits)
        let now = EventLoop.now()
        request.headStarted = now
        request.idleSince = now
    }

    var server: HubServer { context.server }

    /// Back to reading request heads, with a fresh parser.
    func readHeads() {
        request.parser = HTTPHeadParser(limits: server.parserLimits)
        phase = .http
    }

    func connectionDidOpen(_ connection: Connection) {
        server.metrics.connectionsOpen.increment()
    }

    /// Reached from other queues through `LoopBound` (an anchor, never a weak reference: see `LoopAnchor`).
    var loopAnchor: LoopAnchor<HTTPSession> {
        LoopAnchor.kept(in: &anchor, for: self, open: connection.isOpen, loop: connection.loop)
    }

    func connectionDidClose(_ connection: Connection, error: (any Error)?) {
        anchor?.release()
        server.metrics.connectionsOpen.decrement()
        storeInterruptedChunk()
        releaseUploadSlot()
        if case .websocket(_, let app) = phase {
            server.metrics.websocketsOpen.decrement()
            phase = .closing
            app.sessionDidClose(self)
        }
        phase = .closing
    }

    func connectionDidDrain(_ connection: Connection) {
        if case .websocket(_, let app) = phase { app.sessionDidDrain(self) }
    }

    func connectionDidReadEOF(_ connection: Connection) {
        // A half-closed peer: finish what we queued and close.
        connection.close(mode: .afterFlush)
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        var input = bytes
        context.traffic.bytesIn += bytes.count
        while !input.isEmpty {
            switch phase {
            case .http:
                if request.parser.isIdle && request.servedRequests > 0 {
                    // The first byte of a request on a kept-alive connection: its head's deadline starts now.
                    request.headStarted = EventLoop.now()
                }
                let result = request.parser.feed(input)  // in place (no copy of its buffer)
                switch result {
                case .needMoreData:
                    return
                case .error(let error):
                    server.metrics.httpRequests.increment()
                    server.logger.debug(
                        "bad request",
                        metadata: [
                            LogKey.connectionId: "\(connection.id)", LogKey.reason: "\(error.reason)",
                            LogKey.status: "\(error.status)",
                        ])
                    respond(status: error.status, body: Array("\(error.reason)\n".utf8), keepAlive: false)
                    return
                case .head(let head, let consumed):
                    input = UnsafeRawBufferPointer(rebasing: input[consumed...])
                    handle(head, rest: input)
                    switch phase {
                    case .websocket, .uploading, .processing, .authorizing:
                        // The handler consumed `input` (frames, or the body it started with).
                        input = UnsafeRawBufferPointer(start: nil, count: 0)
                    default: break
                    }
                    continue
                }
            case .skippingBody(let remaining, let keepAlive):
                let n = min(remaining, input.count)
                request.bodyReceived += n
                input = UnsafeRawBufferPointer(rebasing: input[n...])
                if remaining - n == 0 {
                    readHeads()
                    request.idleSince = EventLoop.now()
                    if !keepAlive { connection.close(mode: .afterFlush) }
                } else {
                    phase = .skippingBody(remaining: remaining - n, keepAlive: keepAlive)
                }
            case .websocket(let ws, let app):
                receiveFrames(ws, app, input)
                return
            case .uploading(let upload, var body, let remaining):
                phase = .closing  // no copy-on-write of the body while it is out
                let n = min(remaining, input.count)
                request.bodyReceived += n
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[..<n]))
                input = UnsafeRawBufferPointer(rebasing: input[n...])
                if remaining - n > 0 {
                    phase = .uploading(upload, body: body, remaining: remaining - n)
                } else {
                    // Bytes pipelined behind an upload are not served: the response closes the connection.
                    startUpload(
                        upload.head, uploader: upload.uploader, target: upload.target, body: body,
                        keepAlive: upload.head.keepAlive && input.isEmpty)
                    return
                }
            case .authorizing(var pending):
                // Reading is paused; only bytes decrypted from input already read can arrive here.
                phase = .closing
                pending.append(contentsOf: input)
                phase = .authorizing(pending: pending)
                return
            case .processing:
                return
            case .closing:
                return
            }
        }
    }

    // MARK: HTTP

    private func handle(_ head: HTTPRequestHead, rest: UnsafeRawBufferPointer) {
        server.metrics.httpRequests.increment()
        request.servedRequests += 1
        let proxies = server.configuration.trustedProxies
        if !proxies.isEmpty {
            let address = proxies.clientAddress(
                peer: TrustedProxies.stripPort(connection.remoteAddress),
                forwardedFor: head.headers.values(for: "X-Forwarded-For"))
            forwardedClient = ForwardedClient(address: address)
        }
        request.bodyStarted = EventLoop.now()
        request.bodyReceived = 0
        if server.isDraining {
            // Every request while draining (plain, upgrade or voice) gets 503 and the connection closes; any body
            // is discarded by the closing connection. Counted as a rejected connection.
            server.metrics.connectionsRejected.increment()
            respond(
                status: 503, headers: [("Retry-After", "5")],
                body: Array("shutting down\n".utf8), keepAlive: false)
            return
        }
        if let routes = server.application?.routes {
            switch routes.match(method: head.method, path: head.path) {
            case .found(let route, let parameters):
                run(route, head: head, rest: rest, parameters: parameters)
                return
            case .methodNotAllowed(let allowed):
                let result = HTTPResult.error(
                    405, "bad_request", "method not allowed", headers: [("Allow", allowed.joined(separator: ", "))])
                finish(result, keepAlive: false)
                return
            case .notFound:
                break
            }
        }
        if head.isChunked {
            respond(status: 411, body: Array("chunked request bodies are not accepted here\n".utf8), keepAlive: false)
            return
        }
        if let length = head.contentLength, length > server.configuration.maxRequestBodyBytes {
            respond(status: 413, body: Array("request body too large\n".utf8), keepAlive: false)
            return
        }
        let bodyLength = head.contentLength ?? 0
        switch head.path {
        case "/healthz":
            guard allowGet(head, bodyLength: bodyLength) else { return }
            respond(
                status: 200, headers: [("Content-Type", "text/plain")], body: Array("ok\n".utf8), head: head,
                bodyLength: bodyLength)
        case "/readyz":
            guard allowGet(head, bodyLength: bodyLength) else { return }
            let ready = server.isReady
            respond(
                status: ready ? 200 : 503, headers: [("Content-Type", "text/plain")],
                body: Array((ready ? "ready\n" : "not ready\n").utf8), head: head, bodyLength: bodyLength)
        case "/metrics":
            guard allowGet(head, bodyLength: bodyLength) else { return }
            respond(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: server.metrics.render(), head: head, bodyLength: bodyLength)
        case "/echo" where server.configuration.enableEcho:
            upgrade(head, rest: rest, app: EchoApplication.shared)
        case "/ws" where server.application != nil:
            upgrade(head, rest: rest, app: ProtocolApplication(port: self, application: server.application!))
        default:
            if let web = server.web {
                serveWebFile(head, web: web, bodyLength: bodyLength)
            } else {
                respond(status: 404, body: Array("not found\n".utf8), head: head, bodyLength: bodyLength)
            }
        }
    }

    private func allowGet(_ head: HTTPRequestHead, bodyLength: Int) -> Bool {
        if head.method == "GET" || head.method == "HEAD" { return true }
        respond(
            status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8), head: head,
            bodyLength: bodyLength)
        return false
    }

    func respond(
        status: Int, headers: [(String, String)] = [], body: [UInt8], head: HTTPRequestHead, bodyLength: Int
    ) {
        let keepAlive = head.keepAlive
        var headers = headers
        if !keepAlive { headers.append(("Connection", "close")) }
        if head.method == "HEAD" {
            // Content-Length states the length the GET body would have.
            headers.append(("Content-Length", String(body.count)))
            write(HTTPResponse.encode(status: status, headers: headers, body: []))
        } else {
            write(HTTPResponse.encode(status: status, headers: headers, body: body))
        }
        finishPlainResponse(keepAlive: keepAlive, bodyLength: bodyLength)
    }

    /// After a plain response is written: skip the request's body, close, or wait for the next request.
    func finishPlainResponse(keepAlive: Bool, bodyLength: Int) {
        if bodyLength > 0 {
            phase = .skippingBody(remaining: bodyLength, keepAlive: keepAlive)
        } else if !keepAlive {
            phase = .closing
            connection.close(mode: .afterFlush)
        } else {
            request.idleSince = EventLoop.now()
        }
    }

    func respond(status: Int, headers: [(String, String)] = [], body: [UInt8], keepAlive: Bool) {
        var headers = headers
        headers.append(("Content-Type", "text/plain"))
        if !keepAlive { headers.append(("Connection", "close")) }
        write(HTTPResponse.encode(status: status, headers: headers, body: body))
        if !keepAlive {
            phase = .closing
            connection.close(mode: .afterFlush)
        }
    }

    func write(_ bytes: [UInt8]) {
        context.traffic.bytesOut += bytes.count
        connection.write(bytes)
    }

    // MARK: WebSocket

    private func upgrade(_ head: HTTPRequestHead, rest: UnsafeRawBufferPointer, app: any WebSocketApplication) {
        switch WebSocketHandshake.serverResponse(for: head, configuration: server.handshakeConfiguration) {
        case .reject(let status, let headers, let reason):
            server.metrics.handshakeFailed(reason: reason.rawValue)
            respond(
                status: status, headers: headers, body: Array("\(reason.rawValue)\n".utf8), head: head,
                bodyLength: head.contentLength ?? 0)
        case .accept(let response, _, let deflate):
            if let length = head.contentLength, length > 0 {
                server.metrics.handshakeFailed(reason: "bad_request")
                respond(status: 400, body: Array("an upgrade request has no body\n".utf8), keepAlive: false)
                return
            }
            write(response)
            let ws = WebSocketConnection(
                role: .server, configuration: server.webSocketConfiguration, deflate: deflate, now: EventLoop.now())
            phase = .websocket(ws, app)
            _request.release()  // no more HTTP requests on this connection
            server.metrics.websocketsOpen.increment()
            if !rest.isEmpty { receiveFrames(ws, app, rest) }
        }
    }

    private func receiveFrames(
        _ ws: WebSocketConnection, _ app: any WebSocketApplication, _ bytes: UnsafeRawBufferPointer
    ) {
        ws.receive(bytes, now: EventLoop.now()) { event in
            switch event {
            case .text(let data):
                context.traffic.framesIn += 1
                app.session(self, didReceiveText: data)
            case .binary(let data):
                context.traffic.framesIn += 1
                app.session(self, didReceiveBinary: data)
            case .send(let frame):
                write(frame)
            case .closeReceived:
                break
            case .closed(let code):
                if code != 1000 && code != 1001 && code != 1005 {
                    server.logger.debug(
                        "WebSocket closed on bad input",
                        metadata: [LogKey.connectionId: "\(connection.id)", LogKey.code: "\(code)"])
                }
                connection.close(mode: .afterFlush)
            }
        }
    }

    /// Sends one message on the WebSocket (no-op unless open). Applies the backpressure policy.
    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        guard case .websocket(let ws, _) = phase, let frame = ws.makeMessage(opcode, payload: payload) else { return }
        context.traffic.framesOut += 1
        write(frame)
        checkBackpressure(ws)
    }

    /// Sends a message event encoded once for many connections: the shared frame as is when this
    /// connection does not compress, else a frame of its own.
    func sendShared(_ message: OutboundMessage) {
        guard let ws = webSocket else { return }
        sendShared(message, on: ws)
    }

    /// The open phase's WebSocket, for a run of `sendShared(_:on:)` (one look at `phase` for many messages).
    var webSocket: WebSocketConnection? {
        guard case .websocket(let ws, _) = phase else { return nil }
        return ws
    }

    /// `sendShared(_:)` with the WebSocket of `webSocket`.
    func sendShared(_ message: OutboundMessage, on ws: WebSocketConnection) {
        guard ws.acceptsSharedFrames else {
            send(.text, message.payload)
            return
        }
        writeShared(message.frame, ws)
    }

    /// Sends an encoded event (`OutboxItem.event`); the same event posted to many connections of this loop shares
    /// one uncompressed frame (`LoopContext.sharedEventFrame(for:)`).
    func sendEvent(_ bytes: [UInt8]) {
        guard case .websocket(let ws, _) = phase else { return }
        if ws.acceptsUncompressedSharedFrames, let frame = context.sharedEventFrame(for: bytes) {
            writeShared(frame, ws)
            return
        }
        send(.text, bytes)
    }

    /// Sends a fan-out event's prebuilt uncompressed frame as is, also on a connection that negotiated
    /// permessage-deflate (`WebSocketConnection.acceptsUncompressedSharedFrames`): one encoding and no compression
    /// per recipient.
    func sendFanout(_ frame: SharedBytes) {
        guard case .websocket(let ws, _) = phase, ws.acceptsUncompressedSharedFrames else { return }
        writeShared(frame, ws)
    }

    private func writeShared(_ frame: SharedBytes, _ ws: WebSocketConnection) {
        context.traffic.framesOut += 1
        context.traffic.bytesOut += frame.count
        connection.write(frame)
        checkBackpressure(ws)
    }

    private func checkBackpressure(_ ws: WebSocketConnection) {
        guard connection.outboundBytes > server.configuration.maxOutboundBytes else { return }
        server.metrics.backpressureCloses.increment()
        let policy = server.configuration.backpressurePolicy
        server.logger.debug(
            "slow consumer: closing",
            metadata: [LogKey.connectionId: "\(connection.id)", LogKey.code: "\(policy.closeCode)"])
        // Nothing in the queue is acknowledged state: the client resumes from history.
        connection.discardUnsentOutput()
        if let frame = ws.close(code: policy.closeCode, reason: "slow consumer", now: EventLoop.now()) {
            write(frame)
        }
        connection.close(mode: .afterFlush)
    }

    /// Starts the closing handshake with `code` (no-op unless the WebSocket is open).
    func closeWebSocket(code: UInt16, reason: String) {
        guard case .websocket(let ws, _) = phase,
            let frame = ws.close(code: code, reason: reason, now: EventLoop.now())
        else { return }
        write(frame)
    }

    /// Graceful shutdown: WebSockets get 1001, idle HTTP connections are closed.
    func beginShutdown() {
        switch phase {
        case .websocket(let ws, _):
            if let frame = ws.close(
                code: WebSocketCloseCode.goingAway, reason: "server shutting down", now: EventLoop.now())
            {
                write(frame)
            }
        case .http where request.parser.isIdle:
            phase = .closing
            connection.close(mode: .afterFlush)
        default:
            break  // a request in progress finishes; its response says Connection: close
        }
    }

    /// A response is written and the connection waits for the next request (keep-alive idle time starts).
    func markIdle() { request.idleSince = EventLoop.now() }

    /// Whether the current request body has run past `bodyTimeout`, or below `minBodyRate` after the grace of
    /// `handshakeTimeout` seconds.
    private func bodyTooSlow(now: UInt64) -> Bool {
        let elapsed = Double(now &- request.bodyStarted) / 1e9
        let configuration = server.configuration
        if elapsed >= configuration.bodyTimeout { return true }
        let rated = elapsed - configuration.handshakeTimeout
        return configuration.minBodyRate > 0 && rated > 0
            && Double(request.bodyReceived) < Double(configuration.minBodyRate) * rated
    }

    func connection(_ connection: Connection, sweepAt now: UInt64) {
        switch phase {
        case .http:
            if request.parser.isIdle && request.servedRequests > 0 {
                // Kept alive between requests.
                if Double(now &- request.idleSince) >= server.configuration.httpKeepAliveTimeout * 1e9 {
                    phase = .closing
                    connection.close(mode: .immediately)
                }
            } else if Double(now &- request.headStarted) >= server.configuration.handshakeTimeout * 1e9 {
                // A deadline for the whole head: bytes dribbled in do not extend it.
                if !request.parser.isIdle {
                    server.metrics.handshakeFailed(reason: "timeout")
                    respond(status: 408, body: Array("request timeout\n".utf8), keepAlive: false)
                } else {
                    phase = .closing
                    connection.close(mode: .immediately)
                }
            }
        case .skippingBody:
            if bodyTooSlow(now: now) {
                phase = .closing
                connection.close(mode: .immediately)
            }
        case .uploading:
            if bodyTooSlow(now: now) {
                server.metrics.voiceUploadsRefused.increment()
                storeInterruptedChunk()
                releaseUploadSlot()
                respond(status: 408, body: Array("request body too slow\n".utf8), keepAlive: false)
            }
        case .processing, .authorizing:
            break
        case .websocket(let ws, let app):
            switch ws.tick(now: now) {
            case .none: app.session(self, sweepAt: now)
            case .sendPing(let frame): write(frame)
            case .sendClose(let frame):
                write(frame)
            case .abort:
                connection.close(mode: .immediately)
            }
        case .closing:
            break
        }
    }
}
