//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardTransport
import SwitchboardWebSocket

/// One HTTP/1.1 request and its response on a short-lived connection of its own (`Connection: close`), on
/// Switchboard's transport. Used by the voice and photo uploads (direct and tus) and downloads of
/// `SwitchboardClient`.
///
/// The response head is read with `HTTPResponseHeadParser`; the body is framed by `Content-Length` or, without
/// one, by the end of the connection, and is bounded by `maxBodyBytes`. Chunked responses are refused (the
/// server never sends them for these endpoints).
///
/// Confined to its loop's queue: every callback runs there (`loop.assertOnLoop()`).
final class HTTPExchange: ConnectionHandler, @unchecked Sendable {
    // @unchecked Sendable: created on any thread, then touched only on `loop.queue`; every mutable field is
    // protected by that queue.
    let loop: EventLoop
    private let request: [UInt8]
    private let maxBodyBytes: Int
    private let what: String
    /// A `HEAD` request: its response has no body whatever its `Content-Length` says.
    private let isHead: Bool

    // protected by loop.queue
    private var parser = HTTPResponseHeadParser()
    // protected by loop.queue
    private var head: HTTPResponseHead?
    // protected by loop.queue
    private var body: [UInt8] = []
    // protected by loop.queue: the Content-Length of the response, when it has one
    private var expectedLength: Int?
    // protected by loop.queue
    private var connection: Connection?
    // protected by loop.queue
    private var completion: ((Result<HTTPExchangeResponse, SwitchboardClientError>) -> Void)?
    // protected by loop.queue
    private var timer: DispatchWorkItem?

    /// - Parameters:
    ///   - loop: the loop that owns the connection.
    ///   - request: the whole request (head and body).
    ///   - maxBodyBytes: the largest response body accepted.
    ///   - what: the request in words, for error messages (`POST /voice`).
    init(loop: EventLoop, request: [UInt8], maxBodyBytes: Int, what: String) {
        self.loop = loop
        self.request = request
        self.maxBodyBytes = maxBodyBytes
        self.what = what
        self.isHead = request.starts(with: Array("HEAD ".utf8))
    }

    /// Builds the bytes of a request with `Host`, `Connection: close` and, when there is a body,
    /// `Content-Length`.
    static func makeRequest(
        method: String, path: String, hostHeader: String, headers: [(String, String)], body: [UInt8]
    ) -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if method == "POST" || method == "PUT" || !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// Performs the exchange and awaits the response.
    /// - Parameters:
    ///   - endpoint: the server (its host is resolved off the loop when it is a name).
    ///   - tls: the TLS context for `https` (nil: plain TCP).
    ///   - serverName: SNI with TLS.
    ///   - timeout: seconds for the whole exchange (connect, send, response).
    /// - Throws: `.connectFailed` when no connection could be made, `.timeout(op:)`, `.connectionLost(op:)`
    ///   when the connection ended before a complete response, `.invalidMessage` for a malformed or too large
    ///   response, `.cancelled`.
    func run(endpoint: ServerEndpoint, tls: TLSContext?, serverName: String?, timeout: Double)
        async throws(SwitchboardClientError) -> HTTPExchangeResponse
    {
        if Task.isCancelled { throw .cancelled }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<HTTPExchangeResponse, SwitchboardClientError>, Never>) in
                loop.execute { [self] in
                    start(endpoint: endpoint, tls: tls, serverName: serverName, timeout: timeout) {
                        continuation.resume(returning: $0)
                    }
                }
            }
        } onCancel: {
            loop.execute { [self] in fail(.cancelled) }
        }
        return try result.get()
    }

    private func start(
        endpoint: ServerEndpoint, tls: TLSContext?, serverName: String?, timeout: Double,
        completion: @escaping (Result<HTTPExchangeResponse, SwitchboardClientError>) -> Void
    ) {
        loop.assertOnLoop()
        self.completion = completion
        // Weak: the item stays queued until its deadline even when cancelled; the awaiting caller keeps the
        // exchange alive until it completes.
        let timer = DispatchWorkItem { [weak self] in
            guard let self else { return }
            fail(.timeout(op: what))
        }
        self.timer = timer
        loop.queue.asyncAfter(deadline: .now() + max(timeout, 0), execute: timer)
        if HostResolver.isNumeric(endpoint.host) {
            open(address: endpoint.host, port: endpoint.port, tls: tls, serverName: serverName)
            return
        }
        let host = endpoint.host
        DispatchQueue.global().async { [self] in
            let address = HostResolver.resolve(host)
            loop.execute { [self] in
                guard self.completion != nil else { return }
                guard let address else {
                    fail(.connectFailed("cannot resolve \(host)"))
                    return
                }
                open(address: address, port: endpoint.port, tls: tls, serverName: serverName)
            }
        }
    }

    private func open(address: String, port: Int, tls: TLSContext?, serverName: String?) {
        loop.assertOnLoop()
        loop.connect(host: address, port: port, tls: tls, serverName: serverName, handler: self) { [self] result in
            if case .failure(let error) = result { fail(.connectFailed("\(address):\(port): \(error)")) }
        }
    }

    // MARK: ConnectionHandler

    func connectionDidOpen(_ connection: Connection) {
        loop.assertOnLoop()
        guard completion != nil else {
            // Timed out or cancelled before the connection completed.
            connection.close(mode: .immediately)
            return
        }
        self.connection = connection
        connection.write(request)
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        loop.assertOnLoop()
        guard completion != nil else { return }
        if head == nil {
            switch parser.feed(bytes) {
            case .needMoreData:
                return
            case .error(let error):
                fail(.invalidMessage("\(what): malformed response head (\(error.reason))"))
                return
            case .head(let parsed, let consumed):
                if parsed.headers.containsToken("chunked", in: "transfer-encoding") {
                    fail(.invalidMessage("\(what): chunked responses are not supported"))
                    return
                }
                if isHead {
                    // A HEAD response's Content-Length describes the body a GET would have; none follows.
                    expectedLength = 0
                } else if let lengthText = parsed.headers["content-length"] {
                    guard let length = Int(lengthText), length >= 0 else {
                        fail(.invalidMessage("\(what): bad Content-Length \(lengthText)"))
                        return
                    }
                    guard length <= maxBodyBytes else {
                        fail(
                            .invalidMessage(
                                "\(what): response body of \(length) bytes exceeds the limit of \(maxBodyBytes)"))
                        return
                    }
                    expectedLength = length
                } else if parsed.status == 204 || parsed.status == 304 {
                    expectedLength = 0
                }
                head = parsed
                append(UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            append(bytes)
        }
    }

    func connectionDidReadEOF(_ connection: Connection) {
        loop.assertOnLoop()
        finishAtEnd()
        connection.close(mode: .immediately)
    }

    func connectionDidClose(_ connection: Connection, error: (any Error)?) {
        loop.assertOnLoop()
        self.connection = nil
        // A server that answers early (413) and closes may reset the connection while the body is still being
        // written: a complete response read before that still counts.
        finishAtEnd(error: error)
    }

    // MARK: Completion

    private func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty || expectedLength == 0 else { return }
        if body.count + bytes.count > (expectedLength ?? maxBodyBytes) {
            if expectedLength == nil {
                fail(.invalidMessage("\(what): response body exceeds the limit of \(maxBodyBytes) bytes"))
                return
            }
            // Bytes past Content-Length: ignore them (the connection closes anyway).
            body.append(contentsOf: bytes.prefix(expectedLength! - body.count))
        } else {
            body.append(contentsOf: bytes)
        }
        if let expectedLength, body.count == expectedLength { succeed() }
    }

    /// The connection ended: a response without Content-Length ends here; anything else is incomplete.
    private func finishAtEnd(error: (any Error)? = nil) {
        guard completion != nil else { return }
        if head != nil, expectedLength == nil {
            succeed()
        } else if head != nil {
            fail(
                .connectionLost(
                    op: "\(what) (the response ended after \(body.count) of \(expectedLength ?? 0) body bytes)"))
        } else if let error {
            fail(.connectionLost(op: "\(what) (\(error))"))
        } else {
            fail(.connectionLost(op: "\(what) (the server closed the connection without a response)"))
        }
    }

    private func succeed() {
        guard let head else { return }
        var headers: [(name: String, value: String)] = []
        for field in head.headers { headers.append((field.name, field.value)) }
        complete(.success(HTTPExchangeResponse(status: head.status, headers: headers, body: body)))
    }

    private func fail(_ error: SwitchboardClientError) {
        loop.assertOnLoop()
        complete(.failure(error))
    }

    private func complete(_ result: Result<HTTPExchangeResponse, SwitchboardClientError>) {
        loop.assertOnLoop()
        guard let completion else { return }
        self.completion = nil
        timer?.cancel()
        timer = nil
        connection?.close(mode: .immediately)
        completion(result)
    }
}
