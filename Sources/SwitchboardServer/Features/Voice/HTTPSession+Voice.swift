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

/// `POST /voice` and `GET`/`HEAD /voice/{id}` (on the connection's loop; the work runs off it).
extension HTTPSession {
    func handleVoice(_ head: HTTPRequestHead, rest: UnsafeRawBufferPointer) {
        guard let voice = server.services?.voice else { return }
        let bodyLength = head.contentLength ?? 0
        if head.path == "/voice" {
            guard head.method == "POST" else {
                respond(
                    status: 405, headers: [("Allow", "POST")], body: Array("upload with POST\n".utf8), head: head, bodyLength: bodyLength)
                return
            }
            if let uploadId = HTTPSession.queryItems(head.query)["upload"] {
                completeUpload(head, rest: rest, uploadId: uploadId, kind: "voice", keepMetadata: false)
                return
            }
            if head.isChunked || head.contentLength == nil {
                finish(.error(411, "length_required", "send the recording with a Content-Length"), keepAlive: false)
                return
            }
            guard bodyLength <= voice.configuration.maxUploadBytes else {
                finish(.error(413, "audio_too_large", "the upload is larger than \(voice.configuration.maxUploadBytes) bytes"), keepAlive: false)
                return
            }
            guard bodyLength > 0 else {
                finish(.error(422, "audio_empty", "the upload is empty"), keepAlive: head.keepAlive)
                return
            }
            // The token is checked before a byte of the body is read and before a slot is taken: a stranger's
            // upload is answered 401 at once and holds nothing shared. Reading pauses while the check runs.
            let authorization = head.headers["authorization"]
            readBody(head, rest: rest) {
                await voice.identity(authorization, countsAsUpload: true).map { ($0, UploadTarget.voice) }
            }
            return
        }
        // /voice/{id}
        guard head.method == "GET" || head.method == "HEAD" else {
            respond(status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8), head: head, bodyLength: bodyLength)
            return
        }
        guard bodyLength == 0, !head.isChunked else {
            respond(status: 400, body: Array("a download request has no body\n".utf8), keepAlive: false)
            return
        }
        // Digits only (no sign), at most 18 of them: never a trap, and "+1" is not clip 1.
        let idText = head.path.dropFirst("/voice/".count)
        let id = idText.count <= 18 && idText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int64(idText) : nil
        let authorization = head.headers["authorization"]
        let range = head.headers["range"]
        let ifNoneMatch = head.headers["if-none-match"]
        let isHead = head.method == "HEAD"
        let keepAlive = head.keepAlive && rest.isEmpty
        process(keepAlive: keepAlive, isHead: isHead) {
            await voice.download(id: id, authorization: authorization, range: range, ifNoneMatch: ifNoneMatch)
        }
    }

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
            startUpload(head, uploader: uploader, target: target, body: body, keepAlive: head.keepAlive && pending.count == n)
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

    func startUpload(_ head: HTTPRequestHead, uploader: Identity, target: UploadTarget, body: [UInt8], keepAlive: Bool) {
        guard let services = server.services else { return }
        switch target {
        case .voice:
            let contentType = head.headers["content-type"]
            process(keepAlive: keepAlive, isHead: false) {
                await services.voice.upload(body: body, contentType: contentType, uploader: uploader)
            }
        case .photo(let keepMetadata):
            process(keepAlive: keepAlive, isHead: false) {
                await services.photos.upload(body: body, keepMetadata: keepMetadata, uploader: uploader)
            }
        case .chunk(let id, let owner, let offset):
            process(keepAlive: keepAlive, isHead: false) {
                await services.photos.storeChunk(id: id, owner: owner, offset: offset, data: body)
            }
        }
    }

    /// A tus PATCH whose connection dropped (or stalled) mid-body: the bytes that arrived are stored, so `HEAD`
    /// reports them and the client resumes there. Called on the loop; does nothing in any other phase.
    func storeInterruptedChunk() {
        guard case .uploading(let upload, let body, _) = phase, case .chunk(let id, let owner, let offset) = upload.target,
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
}
