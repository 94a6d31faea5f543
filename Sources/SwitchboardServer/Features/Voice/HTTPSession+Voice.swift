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
}
