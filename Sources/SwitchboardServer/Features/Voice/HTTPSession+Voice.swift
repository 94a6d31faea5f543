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

/// `POST /voice` (on the connection's loop; the work runs off it). A session route: the upload's token is checked
/// before its body is read and its body arrives into an upload slot, with answers of its own (411, 413
/// `audio_too_large`, 422 `audio_empty`) that the router's `upload` rule does not give. `GET`/`HEAD /voice/{id}` is a
/// handler route (`VoiceFeature`).
extension HTTPSession {
    func handleVoiceUpload(_ head: HTTPRequestHead, rest: UnsafeRawBufferPointer) {
        guard let voice = server.services?.voice else { return }
        let bodyLength = head.contentLength ?? 0
        guard head.method == "POST" else {
            respond(
                status: 405, headers: [("Allow", "POST")], body: Array("upload with POST\n".utf8), head: head,
                bodyLength: bodyLength)
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
            finish(
                .error(
                    413, "audio_too_large", "the upload is larger than \(voice.configuration.maxUploadBytes) bytes"),
                keepAlive: false)
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
    }
}
