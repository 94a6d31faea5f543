//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
            guard voice.beginUpload() else {
                finish(.error(503, "unavailable", "too many uploads at once; retry shortly", headers: [("Retry-After", "2")]), keepAlive: false)
                return
            }
            holdsUploadSlot = true
            var body: [UInt8] = []
            body.reserveCapacity(bodyLength)
            let n = min(bodyLength, rest.count)
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<n]))
            if n == bodyLength {
                startUpload(head, body: body, keepAlive: head.keepAlive && rest.count == n)
            } else {
                phase = .uploading(head: head, body: body, remaining: bodyLength - n)
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
        let id = Int64(head.path.dropFirst("/voice/".count))
        let authorization = head.headers["authorization"]
        let range = head.headers["range"]
        let ifNoneMatch = head.headers["if-none-match"]
        let isHead = head.method == "HEAD"
        let keepAlive = head.keepAlive && rest.isEmpty
        process(keepAlive: keepAlive, isHead: isHead) {
            await voice.download(id: id, authorization: authorization, range: range, ifNoneMatch: ifNoneMatch)
        }
    }

    func startUpload(_ head: HTTPRequestHead, body: [UInt8], keepAlive: Bool) {
        guard let voice = server.services?.voice else { return }
        let contentType = head.headers["content-type"]
        let authorization = head.headers["authorization"]
        process(keepAlive: keepAlive, isHead: false) {
            await voice.upload(body: body, contentType: contentType, authorization: authorization)
        }
    }

    /// Pauses reading, runs `work` on the request executor, and answers on the loop.
    private func process(keepAlive: Bool, isHead: Bool, _ work: @escaping @Sendable () async -> HTTPResult) {
        guard let executor = server.services?.executor else { return }
        phase = .processing(keepAlive: keepAlive)
        connection.pauseReading()
        let me = LoopBound(self, loop: connection.loop)
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
            phase = .http(HTTPHeadParser(limits: server.parserLimits))
        } else {
            phase = .closing
            connection.close(mode: .afterFlush)
        }
    }

    func releaseUploadSlot() {
        guard holdsUploadSlot else { return }
        holdsUploadSlot = false
        server.services?.voice.endUpload()
    }
}
