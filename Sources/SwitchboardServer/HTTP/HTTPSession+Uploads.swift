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

/// Bodies and answers of HTTP routes, on the connection's loop: the token checked before a body is read, an upload
/// slot held while it arrives, the work run off the loop and its `HTTPResult` written back.
extension HTTPSession {
    /// On the loop once an upload's token (and for a tus PATCH its upload) is checked: refuses (and closes), or
    /// takes a slot (shared by voice, photos and tus chunks) and reads the body.
    func authorized(_ check: Result<(Identity, UploadTarget), HTTPResult>, head: HTTPRequestHead) {
        guard case .authorizing(let pending) = phase, let voice = server.services?.voice else { return }
        let uploader: Identity
        let target: UploadTarget
        switch check {
        case .failure(let refusal):
            // The body is never read: the closing connection discards it.
            finish(refusal, keepAlive: false)
            return
        case .success(let (who, what)):
            uploader = who
            target = what
        }
        if let refusal = voice.beginUpload(userId: uploader.userId) {
            server.metrics.voiceUploadsRefused.increment()
            var result = VoiceService.busy(refusal)
            if case .chunk = target { result.headers += PhotoService.tusHeaders }
            finish(result, keepAlive: false)
            return
        }
        request.uploadSlotUser = uploader.userId
        let bodyLength = head.contentLength ?? 0
        request.bodyStarted = EventLoop.now()
        var body: [UInt8] = []
        body.reserveCapacity(bodyLength)
        let n = min(bodyLength, pending.count)
        request.bodyReceived = n
        body.append(contentsOf: pending[..<n])
        if n == bodyLength {
            startUpload(
                head, uploader: uploader, target: target, body: body, keepAlive: head.keepAlive && pending.count == n)
        } else {
            if pending.isEmpty, head.headers["expect"]?.lowercased() == "100-continue" {
                // The client waits for this before sending the body (RFC 9110 10.1.1); refusals came above.
                write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            phase = .uploading(
                UploadRequest(head: head, uploader: uploader, target: target), body: body, remaining: bodyLength - n)
            connection.resumeReading()
        }
    }

    func startUpload(_ head: HTTPRequestHead, uploader: Identity, target: UploadTarget, body: [UInt8], keepAlive: Bool)
    {
        guard let services = server.services else { return }
        // The upload's writes act for the uploader (`ActingAccount`: refused once the account is deleted).
        let acting = uploader.userId
        let process = { (work: @escaping @Sendable () async -> HTTPResult) in
            self.process(keepAlive: keepAlive, isHead: false) {
                await ActingAccount.$userId.withValue(acting) { await work() }
            }
        }
        switch target {
        case .voice:
            let contentType = head.headers["content-type"]
            process {
                await services.voice.upload(body: body, contentType: contentType, uploader: uploader)
            }
        case .photo(let keepMetadata):
            process {
                await services.photos.upload(body: body, keepMetadata: keepMetadata, uploader: uploader)
            }
        case .chunk(let id, let owner, let offset):
            process {
                await services.photos.storeChunk(id: id, owner: owner, offset: offset, data: body)
            }
        case .route(var request, let handler):
            request.identity = uploader
            request.body = body
            let routed = request
            process { await handler(routed) }
        }
    }

    /// A tus PATCH whose connection dropped (or stalled) mid-body: the bytes that arrived are stored, so `HEAD`
    /// reports them and the client resumes there. Called on the loop; does nothing in any other phase.
    func storeInterruptedChunk() {
        guard case .uploading(let upload, let body, _) = phase,
            case .chunk(let id, let owner, let offset) = upload.target,
            !body.isEmpty, let services = server.services
        else { return }
        phase = .closing
        Task(executorPreference: services.executor) {
            _ = await services.photos.storeChunk(id: id, owner: owner, offset: offset, data: body)
        }
    }

    /// Pauses reading, runs `work` on the request executor, and answers on the loop.
    func process(keepAlive: Bool, isHead: Bool, _ work: @escaping @Sendable () async -> HTTPResult) {
        guard let executor = server.services?.executor else { return }
        phase = .processing(keepAlive: keepAlive)
        connection.pauseReading()
        let me = LoopBound(self)
        Task(executorPreference: executor) {
            let result = await work()
            me.execute { session in
                guard case .processing(let keepAlive) = session.phase else { return }
                session.releaseUploadSlot()
                session.finish(result, keepAlive: keepAlive, isHead: isHead)
                if keepAlive { session.connection.resumeReading() }
            }
        }
    }

    /// Writes a voice response; keeps the connection for the next request or closes it.
    func finish(_ result: HTTPResult, keepAlive: Bool, isHead: Bool = false) {
        server.metrics.httpRequests.increment()
        var headers = result.headers
        if !keepAlive { headers.append(("Connection", "close")) }
        if isHead {
            headers.append(("Content-Length", String(result.body.count)))
            write(HTTPResponse.encode(status: result.status, headers: headers, body: []))
        } else {
            write(HTTPResponse.encode(status: result.status, headers: headers, body: result.body))
        }
        if keepAlive {
            readHeads()
            markIdle()
        } else {
            phase = .closing
            connection.close(mode: .afterFlush)
        }
    }

    func releaseUploadSlot() {
        guard let user = request.uploadSlotUser else { return }
        request.uploadSlotUser = nil
        server.services?.voice.endUpload(userId: user)
    }
    /// Refuses (400, closing) a request that should have no body but has one.
    func noBody(_ head: HTTPRequestHead) -> Bool {
        if head.isChunked || (head.contentLength ?? 0) > 0 {
            finish(.error(400, "bad_request", "this request has no body"), keepAlive: false)
            return false
        }
        return true
    }

    /// Checks an upload off the loop before a byte of its body is read (reading pauses meanwhile), then
    /// ``authorized(_:head:)`` takes a slot and reads the body, or refuses and closes.
    func readBody(
        _ head: HTTPRequestHead, rest: UnsafeRawBufferPointer,
        check: @escaping @Sendable () async -> Result<(Identity, UploadTarget), HTTPResult>
    ) {
        guard let executor = server.services?.executor else { return }
        phase = .authorizing(pending: Array(rest))
        connection.pauseReading()
        let me = LoopBound(self)
        Task(executorPreference: executor) {
            let result = await check()
            me.execute { session in session.authorized(result, head: head) }
        }
    }

    /// `a=1&b=2` as a dictionary (no percent-decoding: the values used here never need it).
    static func queryItems(_ query: String?) -> [String: String] {
        guard let query else { return [:] }
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            items[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
        }
        return items
    }
}
